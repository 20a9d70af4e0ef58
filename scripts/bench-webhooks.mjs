// Webhook section of `npm run bench` (issue 17 items 2 and 3), imported by scripts/bench.mjs.
//   nominal: events at BENCH_WEBHOOK_RATE/s (default 20) for BENCH_WEBHOOK_SECONDS (default 60) to 3 healthy
//            receivers: event commit -> receipt p50/p99, deliveries/s, lost, duplicates
//   flood:   BENCH_WEBHOOK_EVENTS (default 2000) events, BENCH_WEBHOOK_CONCURRENCY (default 20) creates in flight, to 3 healthy receivers:
//            deliveries/s, backlog when the last event is created and its drain rate, lost, duplicates
//   flaky:   the flood with 1 of 3 receivers failing every other request, then replay + sweep until delivered
//   bulk:    the flood from one bulk send of BENCH_WEBHOOK_EVENTS / 2 clients (envelope.created and envelope.sent each), to 3
//            healthy receivers: events arrive as fast as the batch commits them, so delivery, not event creation, sets the pace
// BENCH_WEBHOOK_SCENARIOS (comma-separated: nominal, flood, flaky, bulk; default all) runs a subset. A scenario that breaks
// (e.g. a request unanswered for BENCH_REQUEST_TIMEOUT_S, default 120, named with its method and URL) is reported as a failure
// and the others keep their figures.
import { createServer as createHttpServer } from "node:http";
import { api, fetchWithDeadline } from "./lib/dev-server.mjs";
import { fmt, log, newEnvelope, percentile, positiveInt, sleep, waitFor } from "./lib/bench-util.mjs";
import { prepareBulkBatch, waitForBatch } from "./lib/bulk-setup.mjs";

const WEBHOOK_EVENTS = positiveInt("BENCH_WEBHOOK_EVENTS", 2000);
const EVENT_CONCURRENCY = positiveInt("BENCH_WEBHOOK_CONCURRENCY", 20); // envelope creates in flight in the flood (each fires one envelope.created)
const NOMINAL_RATE = positiveInt("BENCH_WEBHOOK_RATE", 20);
const NOMINAL_SECONDS = positiveInt("BENCH_WEBHOOK_SECONDS", 60);
const SCENARIOS = (process.env.BENCH_WEBHOOK_SCENARIOS ?? "nominal,flood,flaky,bulk").split(",").map((s) => s.trim()).filter(Boolean);

/**
 * A receiver on 127.0.0.1 answering 200, or with `flaky` 500 to every other request. It keeps each
 * event's first successful receipt (time), and for first attempts of a delivery (new X-Service-Delivery)
 * the time from the event's commit (payload `timestamp`, the event row's `created_at`) to receipt.
 * A 2xx for an event it already had is a duplicate receipt.
 */
function startReceiver({ flaky = false } = {}) {
  const r = { requests: 0, failedAnswers: 0, firstAttempts: 0, firstAttemptFailures: 0, seen: new Map(), byEnvelope: new Map(), deliveries: new Set(), latencies: [], receipts: [], lastReceipt: 0 };
  r.server = createHttpServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const now = Date.now();
      r.requests += 1;
      const fail = flaky && r.requests % 2 === 1;
      const delivery = req.headers["x-service-delivery"];
      const first = !r.deliveries.has(delivery);
      r.deliveries.add(delivery);
      if (first) r.firstAttempts += 1;
      if (fail) {
        r.failedAnswers += 1;
        if (first) r.firstAttemptFailures += 1;
        return res.writeHead(500).end("failing half the time");
      }
      const payload = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      if (!r.seen.has(payload.event_id)) {
        r.seen.set(payload.event_id, now);
        if (payload.envelope_id) r.byEnvelope.set(payload.envelope_id, now);
        r.receipts.push(now);
        if (first) r.latencies.push(now - Date.parse(payload.timestamp));
        r.lastReceipt = now;
      }
      res.writeHead(200).end("ok");
    });
  });
  const server = r.server;
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, stats: r, url: `http://127.0.0.1:${server.address().port}/hook` })));
}

/** An organization with a partner key (to create events) and an admin access token (to manage endpoints). */
async function webhookTenant(ctx, name) {
  const op = { token: ctx.operatorToken };
  const org = await api(ctx.base, "POST", "/operator/orgs", { ...op, body: { name } });
  const key = await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/api-keys`, { ...op, body: { scopes: ["envelopes:write"], rate_limit_rpm: 1_000_000 } });
  const user = await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/users`, { ...op, body: { email: `admin-${org.org_id}@bench.example`, name: "Bench Admin", role: "admin" } });
  const session = await api(ctx.base, "POST", `/operator/users/${user.user_id}/access-tokens`, { ...op, body: { org_id: org.org_id, ttl_seconds: 3600 } });
  return { apiKey: key.api_key, token: session.access_token };
}

async function withReceivers(ctx, name, { flaky = false } = {}, fn) {
  const tenant = await webhookTenant(ctx, `Bench webhooks ${name}`);
  const receivers = await Promise.all([startReceiver(), startReceiver(), startReceiver({ flaky })]);
  try {
    const endpoints = [];
    for (const r of receivers) endpoints.push(await api(ctx.base, "POST", "/webhooks/endpoints", { token: tenant.token, body: { url: r.url, events: ["envelope.*"] } }));
    return await fn({ tenant, receivers, endpoints });
  } finally {
    for (const r of receivers) r.server.close();
  }
}

const totals = (receivers, events) => ({
  delivered: receivers.reduce((n, r) => n + r.stats.seen.size, 0),
  lost: receivers.reduce((n, r) => n + (events - r.stats.seen.size), 0),
  duplicates: receivers.reduce((n, r) => n + (r.stats.requests - r.stats.failedAnswers - r.stats.seen.size), 0),
  latencies: receivers.flatMap((r) => r.stats.latencies),
});

/** Events at a steady NOMINAL_RATE/s (open loop: a create starts every 1/rate s, whatever the answers). */
async function nominalScenario(ctx) {
  const name = `nominal: ${NOMINAL_RATE} events/s for ${NOMINAL_SECONDS} s, 3 healthy endpoints`;
  ctx.setPhase(`webhooks: nominal`);
  return withReceivers(ctx, "nominal", {}, async ({ tenant, receivers }) => {
    const total = NOMINAL_RATE * NOMINAL_SECONDS;
    log(`webhooks, ${name}: ${total} events`);
    const started = Date.now();
    const creates = [];
    const answeredAt = new Map(); // envelope id -> when its create's answer arrived
    let createFailures = 0;
    let firstError = "";
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / NOMINAL_RATE;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      creates.push(
        api(ctx.base, "POST", "/partner/envelopes", { apiKey: tenant.apiKey, body: newEnvelope() }).then(
          (e) => void answeredAt.set(e.envelope_id, Date.now()),
          (err) => {
            createFailures++;
            firstError ||= String(err.message).slice(0, 200);
          },
        ),
      );
    }
    await Promise.all(creates);
    const createdIn = Date.now() - started;
    const created = total - createFailures;
    await waitFor(() => receivers.every((r) => r.stats.seen.size >= created), 60_000);
    await sleep(2_000); // late duplicates, if any
    const t = totals(receivers, created);
    const lastReceipt = Math.max(...receivers.map((r) => r.stats.lastReceipt));
    // the same receipts measured from the moment the create's answer reached the client (after commit)
    const fromAnswer = receivers.flatMap((r) => [...r.stats.byEnvelope].flatMap(([id, at]) => (answeredAt.has(id) ? [at - answeredAt.get(id)] : [])));
    return {
      row: [name, String(created), fmt(created / (createdIn / 1000), 0), fmt(t.delivered / ((lastReceipt - started) / 1000), 0), fmt(percentile(t.latencies, 0.5), 0), fmt(percentile(t.latencies, 0.99), 0), fmt(Math.max(...t.latencies), 0), "-", "-", String(t.lost), String(t.duplicates)],
      failures: [...(createFailures > 0 ? [`webhooks, nominal: ${createFailures} envelope creates failed (first: ${firstError})`] : []), ...(t.lost > 0 ? [`webhooks, nominal: ${t.lost} deliveries never received`] : [])],
      p99: percentile(t.latencies, 0.99),
      extra: `nominal, measured from the create's answer at the client instead of the event's created_at: p50 ${fmt(percentile(fromAnswer, 0.5), 0)} ms, p99 ${fmt(percentile(fromAnswer, 0.99), 0)} ms (negative: the receipt came before the answer did).`,
    };
  });
}

/** The flood: WEBHOOK_EVENTS creates, EVENT_CONCURRENCY in flight. */
async function createEvents(ctx, apiKey) {
  let next = 0;
  const worker = async () => {
    while (next < WEBHOOK_EVENTS) {
      next += 1;
      await api(ctx.base, "POST", "/partner/envelopes", { apiKey, body: newEnvelope() });
    }
  };
  await Promise.all(Array.from({ length: EVENT_CONCURRENCY }, worker));
}

/**
 * Retries are minutes to hours apart (1 m ... 8 h) and wrangler dev cannot run the cron handler at a
 * chosen instant (/cdn-cgi/handler/scheduled does not reach a Worker with static assets), so the bench
 * proves eventual delivery the way an operator would recover a failing endpoint: replay every delivery
 * whose event the endpoint has not received (POST /webhooks/deliveries/:id/redeliver), then run the
 * cron handler (/__scheduled, wrangler dev --test-scheduled), whose sweep sends every due delivery.
 * Rounds repeat until nothing is missing. The retry schedule itself is tested on an injected clock
 * (test/jobs/webhook-retries.spec.ts).
 */
async function replayUntilDelivered(ctx, tenant, endpointId, receiver) {
  const replayed = new Set();
  let rounds = 0;
  const missing = async () => {
    const out = [];
    for (const status of ["pending", "failed"]) {
      for (let page = 1; ; page++) {
        const list = await fetchWithDeadline(`${ctx.base}/api/v2/webhooks/endpoints/${endpointId}/deliveries?status=${status}&limit=100&page=${page}`, {
          headers: { authorization: `Bearer ${tenant.token}` },
        }).then((r) => JSON.parse(r.text));
        out.push(...list.data.filter((d) => !receiver.stats.seen.has(d.event_id) && !replayed.has(d.delivery_id)));
        if (list.data.length < 100) break;
      }
    }
    return out;
  };
  while (receiver.stats.seen.size < WEBHOOK_EVENTS && rounds < 30) {
    rounds += 1;
    const todo = await missing();
    let next = 0;
    const worker = async () => {
      while (next < todo.length) {
        const d = todo[next++];
        replayed.add(d.delivery_id);
        await api(ctx.base, "POST", `/webhooks/deliveries/${d.delivery_id}/redeliver`, { token: tenant.token, body: {} });
      }
    };
    await Promise.all(Array.from({ length: EVENT_CONCURRENCY }, worker));
    const res = await fetchWithDeadline(`${ctx.base}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
    if (!res.ok) throw new Error(`/__scheduled answered ${res.status}: ${res.text}`);
  }
  return { rounds, redelivered: replayed.size };
}

async function fanOutScenario(ctx, name, { flaky }) {
  ctx.setPhase(`webhooks: ${name}`);
  return withReceivers(ctx, name, { flaky }, async ({ tenant, receivers, endpoints }) => {
    log(`webhooks, ${name}: ${WEBHOOK_EVENTS} events to 3 receivers`);
    const started = Date.now();
    await createEvents(ctx, tenant.apiKey);
    const createdAt = Date.now();
    const createdIn = createdAt - started;
    const receivedByThen = receivers.reduce((n, r) => n + r.stats.receipts.filter((t) => t <= createdAt).length, 0);
    const firstPassDone = () => receivers.every((r) => r.stats.firstAttempts >= WEBHOOK_EVENTS);
    const settled = await waitFor(firstPassDone, 300_000);
    await sleep(2_000); // late duplicates, if any
    const lastReceipt = Math.max(...receivers.map((r) => r.stats.lastReceipt));
    const firstPassMs = lastReceipt - started;
    const delivered = receivers.reduce((n, r) => n + r.stats.seen.size, 0);
    // backlog: deliveries owed for the events created so far, not yet received, when the last create answered
    const backlog = (flaky ? 2.5 : 3) * WEBHOOK_EVENTS - receivedByThen;
    const drainMs = lastReceipt - createdAt;
    const firstAttempts = receivers.reduce((n, r) => n + r.stats.firstAttempts, 0);
    const firstFailures = receivers.reduce((n, r) => n + r.stats.firstAttemptFailures, 0);
    const latencies = receivers.flatMap((r) => r.stats.latencies);
    const retry = flaky && settled ? await replayUntilDelivered(ctx, tenant, endpoints[2].endpoint_id, receivers[2]) : { rounds: 0, redelivered: 0 };
    const t = totals(receivers, WEBHOOK_EVENTS);
    return {
      row: [
        name,
        String(WEBHOOK_EVENTS),
        fmt(WEBHOOK_EVENTS / (createdIn / 1000), 0),
        fmt(delivered / (firstPassMs / 1000), 0),
        fmt(percentile(latencies, 0.5), 0),
        fmt(percentile(latencies, 0.99), 0),
        fmt(Math.max(...latencies), 0),
        String(Math.max(0, Math.round(backlog))),
        backlog > 0 && drainMs > 0 ? fmt(backlog / (drainMs / 1000), 0) : "-",
        String(t.lost),
        String(t.duplicates),
      ],
      extra: flaky
        ? `failing run: ${firstFailures}/${firstAttempts} first attempts failed; ${retry.rounds} replay rounds, ${retry.redelivered} redelivered; ` +
          `duplicate receipts per receiver ${receivers.map((r) => r.stats.requests - r.stats.failedAnswers - r.stats.seen.size).join("/")} ` +
          "(the failing one's: a replay of an event whose original delivery was still retrying, both sent by the sweep, both answered 2xx)"
        : null,
      failures: [
        ...(settled ? [] : [`webhooks, ${name}: first attempts incomplete after 300 s (${receivers.map((r) => r.stats.firstAttempts).join("/")} of ${WEBHOOK_EVENTS} per receiver)`]),
        ...(t.lost > 0 ? [`webhooks, ${name}: ${t.lost} event deliveries never received`] : []),
      ],
    };
  });
}

/**
 * The flood from a bulk send: WEBHOOK_EVENTS / 2 clients, each envelope publishing envelope.created and
 * envelope.sent, 3 healthy receivers subscribed to envelope.*. The batch commits its events 50 envelopes
 * at a time, far faster than partner POSTs create them, so a backlog can form and delivery sets the pace.
 */
async function bulkFloodScenario(ctx) {
  const clients = Math.max(1, Math.floor(WEBHOOK_EVENTS / 2));
  const events = clients * 2;
  const name = `flood from a bulk send: ${clients} clients, ${events} events, 3 healthy endpoints`;
  ctx.setPhase("webhooks: bulk flood setup");
  const receivers = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
  try {
    const { console_, batch } = await prepareBulkBatch(ctx, {
      name: "Bench webhooks bulk flood",
      clients,
      beforeItems: async (console_) => {
        for (const r of receivers) await console_("POST", "/webhooks/endpoints", { url: r.url, events: ["envelope.*"] });
      },
    });
    ctx.setPhase("webhooks: bulk flood");
    log(`webhooks, ${name}`);
    const started = Date.now();
    await console_("POST", `/bulk-send/${batch.batch_id}/submit`);
    const last = await waitForBatch(console_, batch.batch_id);
    const settledAt = Date.now();
    const receivedByThen = receivers.reduce((n, r) => n + r.stats.receipts.filter((t) => t <= settledAt).length, 0);
    const settled = await waitFor(() => receivers.every((r) => r.stats.firstAttempts >= events), 300_000);
    await sleep(2_000); // late duplicates, if any
    const lastReceipt = Math.max(...receivers.map((r) => r.stats.lastReceipt));
    const t = totals(receivers, events);
    const backlog = 3 * events - receivedByThen;
    const drainMs = lastReceipt - settledAt;
    return {
      row: [
        name,
        String(events),
        fmt(events / ((settledAt - started) / 1000), 0),
        fmt(t.delivered / ((lastReceipt - started) / 1000), 0),
        fmt(percentile(t.latencies, 0.5), 0),
        fmt(percentile(t.latencies, 0.99), 0),
        fmt(Math.max(...t.latencies), 0),
        String(Math.max(0, backlog)),
        backlog > 0 && drainMs > 0 ? fmt(backlog / (drainMs / 1000), 0) : "-",
        String(t.lost),
        String(t.duplicates),
      ],
      extra:
        `bulk flood: the batch was seen settled ${fmt((settledAt - started) / 1000, 1)} s after the submit (events/s: its ${events} events over that time, polled every 250 ms); ` +
        (drainMs > 0 ? `the last receipt came ${fmt(drainMs / 1000, 1)} s later.` : `every receipt had arrived by then (the last ${fmt(-drainMs / 1000, 1)} s before).`),
      failures: [
        ...(last.batch.status === "completed" ? [] : [`webhooks, bulk flood: batch ended ${last.batch.status} with counts ${JSON.stringify(last.counts)}`]),
        ...(settled ? [] : [`webhooks, bulk flood: first attempts incomplete after 300 s (${receivers.map((r) => r.stats.firstAttempts).join("/")} of ${events} per receiver)`]),
        ...(t.lost > 0 ? [`webhooks, bulk flood: ${t.lost} event deliveries never received`] : []),
      ],
    };
  } finally {
    for (const r of receivers) r.server.close();
  }
}

/**
 * One scenario's result, or, if it broke (a request that hung past REQUEST_TIMEOUT_MS, a refused
 * setup call), a row of dashes and the error as its failure: the other scenarios keep their figures.
 */
async function scenario(name, run) {
  try {
    return await run();
  } catch (err) {
    log(`webhooks, ${name}: FAILED: ${err.message}`);
    return { row: [`${name} (failed, see below)`, ...Array(10).fill("-")], failures: [`webhooks, ${name}: ${err.message}`], extra: null };
  }
}

export async function webhookSection(ctx) {
  const results = [];
  if (SCENARIOS.includes("nominal")) results.push(await scenario("nominal", () => nominalScenario(ctx)));
  if (SCENARIOS.includes("flood")) results.push(await scenario("flood", () => fanOutScenario(ctx, `flood: ${WEBHOOK_EVENTS} events, 3 healthy endpoints`, { flaky: false })));
  if (SCENARIOS.includes("flaky")) results.push(await scenario("flaky", () => fanOutScenario(ctx, `flood: 1 of 3 failing every other request`, { flaky: true })));
  if (SCENARIOS.includes("bulk")) results.push(await scenario("bulk flood", () => bulkFloodScenario(ctx)));
  const nominal = results.find((r) => r.p99 !== undefined);
  return {
    title: `Webhooks: events from partner POSTs (envelope.created) and from a bulk send (envelope.created, envelope.sent) to 3 loopback receivers, wrangler dev (local)`,
    columns: ["scenario", "events", "events/s", "deliveries/s", "p50 ms", "p99 ms", "max ms", "backlog", "drain/s", "lost", "dup"],
    rows: results.map((r) => r.row),
    notes: [
      "p50/p99/max: event commit (the event row's created_at, sent as the payload timestamp, taken just before the D1 batch commits) to receipt at the receiver, first attempts that succeeded.",
      "deliveries/s: events received (first time) by all receivers over the time from the first create to the last first-pass receipt.",
      "backlog: deliveries owed but not yet received when the last create answered; drain/s: that backlog over the time from then to the last receipt.",
      "dup: 2xx receipts of an event the receiver already had (at-least-once; receivers deduplicate on event_id / webhook-id). lost = deliveries some receiver never got.",
      ...(nominal ? [`nominal p99 target < 1000 ms: ${nominal.p99 < 1000 ? "met" : "missed"}.`] : []),
      ...results.flatMap((r) => (r.extra ? [r.extra] : [])),
    ],
    failures: results.flatMap((r) => r.failures),
  };
}
