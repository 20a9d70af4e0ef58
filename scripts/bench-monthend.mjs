// The monthend section of `npm run bench` (issue 34 item 3): a lender's month-end mix on its own wrangler dev,
// fresh state, each figure beside its single-workload figure from the same run.
//   batches: one bulk batch of BENCH_MONTHEND_CLIENTS (default 1000) clients alone, then BENCH_MONTHEND_BATCHES (default 10)
//            such batches submitted at once: submit to every envelope settled (goal: under 60 s), every item sent
//   reads:   the partner status read's p99 (GET /partner/envelopes/:id/status, BENCH_MONTHEND_READERS connections, default 10)
//            on the idle service, and while the batches run
//   flood:   one bulk send of the same size to 3 loopback receivers (envelope.created + envelope.sent each):
//            deliveries/s (goal: 2,000/s), lost, duplicated per event id, p99 commit-to-receipt
//   floor:   what the local runtime does at most: the receiver alone, and a bare Worker (no code of ours) in the
//            same runtime fetching it per request, from one invocation in the service's lanes, and from the local queue
import autocannon from "autocannon";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { api, fetchWithDeadline, REQUEST_TIMEOUT_MS, startFreshServer, stopServer } from "./lib/dev-server.mjs";
import { fmt, log, newEnvelope, percentile, positiveInt, ratio, sleep, waitFor } from "./lib/bench-util.mjs";
import { prepareBulkBatch } from "./lib/bulk-setup.mjs";

const CLIENTS = positiveInt("BENCH_MONTHEND_CLIENTS", 1000);
const BATCHES = positiveInt("BENCH_MONTHEND_BATCHES", 10);
const READERS = positiveInt("BENCH_MONTHEND_READERS", 10);
const IDLE_SECONDS = positiveInt("BENCH_MONTHEND_IDLE_SECONDS", 10);
const TARGET_S = 60;
const FLOOD_TARGET = 2000;
const ATTEMPT_LANES = 6; // src/services/webhooks/deliver.ts: a service invocation's attempts in flight
// which parts run (comma-separated: batches, flood, floor; default all): the flood alone takes a minute, the whole section ten
const PARTS = new Set((process.env.BENCH_MONTHEND_PARTS ?? "batches,flood,floor").split(",").map((s) => s.trim()));

/** autocannon until `stop()`; `done` resolves to its result. */
function cannonUntilStopped(opts, connections) {
  let instance;
  const done = new Promise((resolve, reject) => {
    instance = autocannon({ connections, duration: 3600, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
  return { stop: () => instance.stop(), done };
}

const cannonFor = (opts, connections, duration) =>
  new Promise((resolve, reject) => autocannon({ connections, duration, ...opts }, (err, result) => (err ? reject(err) : resolve(result))));

/**
 * A receiver on 127.0.0.1 answering 200: per event id the number of 2xx receipts, the first receipt's time,
 * and commit (payload `timestamp`) to first receipt.
 */
function startReceiver() {
  const r = { requests: 0, receipts: new Map(), latencies: [], first: Infinity, last: 0 };
  const server = createHttpServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const now = Date.now();
      r.requests += 1;
      let id = `raw-${r.requests}`;
      let timestamp = null;
      try {
        const payload = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        id = payload.event_id ?? id;
        timestamp = payload.timestamp;
      } catch {
        // the floor rows post bodies that are not events: each counts as its own receipt
      }
      const count = r.receipts.get(id) ?? 0;
      r.receipts.set(id, count + 1);
      if (count === 0) {
        if (timestamp) r.latencies.push(now - Date.parse(timestamp));
        r.first = Math.min(r.first, now);
        r.last = Math.max(r.last, now);
      }
      res.writeHead(200).end("ok");
    });
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, stats: r, url: `http://127.0.0.1:${server.address().port}/hook` })));
}

const duplicatesOf = (receiver) => [...receiver.stats.receipts.values()].reduce((n, c) => n + c - 1, 0);

/**
 * Polls the batch every 250 ms until it ends, as waitForBatch does, except that a poll left unanswered past
 * the request deadline is counted (and reported as a failure) and the polling goes on, so the run keeps its figures.
 */
async function waitSettled(console_, batchId, hung) {
  for (;;) {
    try {
      const last = await console_("GET", `/bulk-send/${batchId}?limit=1`);
      if (["completed", "cancelled", "failed"].includes(last.batch.status)) return last;
    } catch (err) {
      if (!/got no answer within/.test(String(err.message))) throw err;
      hung.push(err.message);
    }
    await sleep(250);
  }
}

/** Submits every batch at once; when each ended, its last progress answer; the polls that hung. */
async function runBatches(prepared) {
  const started = performance.now();
  const hung = [];
  await Promise.all(prepared.map(({ console_, batch }) => console_("POST", `/bulk-send/${batch.batch_id}/submit`)));
  const ends = await Promise.all(
    prepared.map(async ({ console_, batch }) => {
      const last = await waitSettled(console_, batch.batch_id, hung);
      return { last, seconds: (performance.now() - started) / 1000 };
    }),
  );
  return { seconds: Math.max(...ends.map((e) => e.seconds)), ends, hung };
}

function batchFailures(label, ends) {
  return ends.flatMap(({ last }, i) =>
    last.batch.status === "completed" && last.counts.sent === CLIENTS ? [] : [`monthend, ${label} #${i + 1}: ended ${last.batch.status} with counts ${JSON.stringify(last.counts)}`],
  );
}

const codesOf = (r) => Object.entries(r.statusCodeStats).map(([code, s]) => `${code}x${s.count}`).join(" ");

/**
 * One batch ready to submit. A setup call that wrangler dev drops under load (its 503 "Your worker restarted
 * mid-request", seen at load 15 on 2 cores) is not retried in place (a POST may have been applied): the whole
 * batch is prepared again in a new organization, twice at most.
 */
async function prepareOne(ctx, name, beforeItems, attempt = 1) {
  try {
    return await prepareBulkBatch(ctx, { name: attempt > 1 ? `${name} (setup ${attempt})` : name, clients: CLIENTS, beforeItems });
  } catch (err) {
    if (attempt >= 3 || !/answered 503: Your worker restarted/.test(String(err.message))) throw err;
    log(`monthend: ${name}: setup dropped by wrangler dev (${String(err.message).slice(0, 80)}); preparing it again`);
    return prepareOne(ctx, name, beforeItems, attempt + 1);
  }
}

/** Prepares `n` batches, `parallel` at a time (each creates its CLIENTS customers 25 at a time). */
async function prepareMany(ctx, label, n, parallel = 3, beforeItems) {
  const out = [];
  for (let i = 0; i < n; i += parallel) {
    const group = Array.from({ length: Math.min(parallel, n - i) }, (_, j) => i + j);
    out.push(...(await Promise.all(group.map((k) => prepareOne(ctx, `Bench monthend ${label} ${k + 1}`, beforeItems)))));
  }
  return out;
}

/** The flood from one bulk send of CLIENTS clients to 3 receivers subscribed to envelope.*. */
async function flood(ctx) {
  const receivers = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
  try {
    // the same bulk send in an organization with no endpoint: the batch's own work, which the flood's deliveries share one isolate with locally
    const [bare] = await prepareMany(ctx, "flood, no endpoint", 1, 1);
    log(`monthend: the flood's bulk send of ${CLIENTS} clients with no endpoint`);
    const alone = await runBatches([bare]);
    const [prepared] = await prepareMany(ctx, "flood", 1, 1, async (console_) => {
      for (const r of receivers) await console_("POST", "/webhooks/endpoints", { url: r.url, events: ["envelope.*"] });
    });
    log(`monthend: webhook flood from one bulk send of ${CLIENTS} clients to 3 receivers`);
    const started = Date.now();
    const { ends, hung, seconds } = await runBatches([prepared]);
    const events = 2 * ends[0].last.counts.sent;
    const settled = await waitFor(() => receivers.every((r) => r.stats.receipts.size >= events), 300_000);
    await sleep(2_000); // late duplicates, if any
    const delivered = receivers.reduce((n, r) => n + r.stats.receipts.size, 0);
    const last = Math.max(...receivers.map((r) => r.stats.last));
    const first = Math.min(...receivers.map((r) => r.stats.first));
    return {
      delivered,
      batchSeconds: seconds,
      bareSeconds: alone.seconds,
      perSecond: delivered / ((last - started) / 1000),
      flowingPerSecond: delivered / ((last - first) / 1000),
      lost: receivers.reduce((n, r) => n + Math.max(0, events - r.stats.receipts.size), 0),
      duplicates: receivers.reduce((n, r) => n + duplicatesOf(r), 0),
      latencies: receivers.flatMap((r) => r.stats.latencies),
      failures: [
        ...batchFailures("flood batch", ends),
        ...batchFailures("flood's batch with no endpoint", alone.ends),
        ...hung,
        ...alone.hung,
        ...(settled ? [] : [`monthend, flood: after 300 s the receivers had ${receivers.map((r) => r.stats.receipts.size).join("/")} of ${events} events`]),
      ],
    };
  } finally {
    for (const r of receivers) r.server.close();
  }
}

// A bare Worker in the runtime wrangler dev uses: one fetch to the receiver per request (/one); `n` fetches from one
// invocation, `lanes` in flight (/fan); and the local queue, whose consumer fetches once per message.
const FLOOR_WORKER = `
export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    const target = url.searchParams.get("to");
    const post = (i) => fetch(target, { method: "POST", body: JSON.stringify({ event_id: crypto.randomUUID(), i }) }).then((r) => r.arrayBuffer());
    if (url.pathname === "/one") { await post(0); return new Response("ok"); }
    if (url.pathname === "/fan") {
      const n = Number(url.searchParams.get("n"));
      let next = 0;
      const lane = async () => { while (next < n) await post(next++); };
      const t0 = Date.now();
      await Promise.all(Array.from({ length: Number(url.searchParams.get("lanes")) }, lane));
      return Response.json({ ms: Date.now() - t0 });
    }
    if (url.pathname === "/enqueue") {
      const n = Number(url.searchParams.get("n"));
      for (let i = 0; i < n; i += 100) await env.Q.sendBatch(Array.from({ length: Math.min(100, n - i) }, (_, j) => ({ body: { to: target, i: i + j } })));
      return new Response("ok");
    }
    return new Response("unknown", { status: 404 });
  },
  async queue(batch) {
    await Promise.all(batch.messages.map((m) => fetch(m.body.to, { method: "POST", body: JSON.stringify({ event_id: crypto.randomUUID() }) }).then((r) => r.arrayBuffer())));
  },
};`;

/** The floor rows, and how long the six-lane fan of `deliveries` fetches took (ms). */
async function floorRows(deliveries) {
  const rows = [];
  let fanMs = null;
  const receiver = await startReceiver();
  const persist = mkdtempSync(join(tmpdir(), "bench-monthend-floor-"));
  const mf = new Miniflare({
    modules: true,
    script: FLOOR_WORKER,
    compatibilityDate: "2026-04-20",
    queueProducers: { Q: { queueName: "floor" } },
    queueConsumers: { floor: { maxBatchSize: 50, maxBatchTimeout: 1 } },
    queuesPersist: join(persist, "queues"),
  });
  try {
    const base = await mf.ready;
    const to = encodeURIComponent(receiver.url);
    log("monthend floor: the receiver alone, then a bare Worker fetching it");
    const alone = await cannonFor({ url: receiver.url, method: "POST", body: "{}" }, 50, 5);
    rows.push(["floor: the receiver alone (Node POSTs, 50 connections, 5 s)", `${fmt(alone.requests.average, 0)}/s`, "-", "-", `p99 ${fmt(alone.latency.p99)} ms`]);
    const one = await cannonFor({ url: `${base}one?to=${to}` }, 50, 5);
    rows.push(["floor: bare Worker, one fetch to the receiver per request (50 conn, 5 s)", `${fmt(one.requests.average, 0)}/s`, "-", "-", `p99 ${fmt(one.latency.p99)} ms`]);
    for (const lanes of [ATTEMPT_LANES, 50]) {
      const res = await fetchWithDeadline(`${base}fan?to=${to}&n=${deliveries}&lanes=${lanes}`);
      const { ms } = JSON.parse(res.text);
      if (lanes === ATTEMPT_LANES) fanMs = ms;
      rows.push([`floor: bare Worker, ${deliveries} fetches from one invocation, ${lanes} in flight`, `${fmt(deliveries / (ms / 1000), 0)}/s`, "-", "-", `${fmt(ms / 1000, 1)} s`]);
    }
    const before = receiver.stats.requests;
    const t0 = Date.now();
    await fetchWithDeadline(`${base}enqueue?to=${to}&n=${deliveries}`);
    const drained = await waitFor(() => receiver.stats.requests - before >= deliveries, 300_000);
    const ms = Date.now() - t0;
    rows.push([`floor: local queue, ${deliveries} messages, consumer (batches of 50) fetches each`, drained ? `${fmt(deliveries / (ms / 1000), 0)}/s` : "incomplete", "-", "-", `${fmt(ms / 1000, 1)} s`]);
  } finally {
    await mf.dispose();
    receiver.server.close();
    rmSync(persist, { recursive: true, force: true });
  }
  return { rows, fanMs };
}

/** The batches' rows: one batch alone, then BATCHES at once with status reads alongside, against the idle read; and the BATCHES' time. */
async function batchRows(sctx, opened, failures) {
  const op = { token: sctx.operatorToken };
  const org = await api(sctx.base, "POST", "/operator/orgs", { ...op, body: { name: "Bench monthend reader" } });
  const key = await api(sctx.base, "POST", `/operator/orgs/${org.org_id}/api-keys`, { ...op, body: { scopes: ["envelopes:read", "envelopes:write"], rate_limit_rpm: 1_000_000 } });

  log(`monthend: preparing ${BATCHES + 1} batches of ${CLIENTS} clients (shards open: ${opened.join(", ")})`);
  const prepared = await prepareMany(sctx, "batch", BATCHES + 1);
  // the reader's envelope only now: an envelope written before the batch organizations were placed would send them all to the other shard
  const envelope = await api(sctx.base, "POST", "/partner/envelopes", { apiKey: key.api_key, body: newEnvelope() });
  // the bench's request deadline, not autocannon's 10 s: a slow read is measured, an unanswered one is a failure
  const read = { url: `${sctx.base}/api/v2/partner/envelopes/${envelope.envelope_id}/status`, headers: { "x-api-key": key.api_key }, timeout: REQUEST_TIMEOUT_MS / 1000 };

  log(`monthend: status read on the idle service, ${IDLE_SECONDS} s at ${READERS} connections`);
  await cannonFor(read, READERS, 1);
  const idle = await cannonFor(read, READERS, IDLE_SECONDS);

  log("monthend: one batch alone");
  const single = await runBatches(prepared.slice(0, 1));
  failures.push(...batchFailures("single batch", single.ends));

  log(`monthend: ${BATCHES} batches at once, status reads alongside`);
  const reads = cannonUntilStopped(read, READERS);
  let mix;
  try {
    mix = await runBatches(prepared.slice(1));
  } finally {
    reads.stop();
  }
  const busy = await reads.done;
  failures.push(...batchFailures("mixed batch", mix.ends), ...single.hung, ...mix.hung.map((h) => `monthend, while the ${BATCHES} batches ran: ${h}`));
  for (const [label, r] of [["idle", idle], ["busy", busy]]) {
    if (r.non2xx > 0 || r.errors > 0) failures.push(`monthend: status read (${label}) ${r.non2xx} non-2xx, ${r.errors} errors of which ${r.timeouts} unanswered in ${REQUEST_TIMEOUT_MS / 1000} s (${codesOf(r)})`);
  }
  const sent = mix.ends.reduce((n, e) => n + e.last.counts.sent, 0);
  // the shard each batch ran on, from its id (`bsb_<n>_…`): batches on one shard share its single writer
  const shardOfBatch = ({ batch }) => /^bsb_(\d+)_/.exec(batch.batch_id)?.[1] ?? "?";
  const perShard = prepared.slice(1).reduce((m, p) => m.set(shardOfBatch(p), (m.get(shardOfBatch(p)) ?? 0) + 1), new Map());
  const shards = `${[...perShard].sort().map(([n, c]) => `${c} on shard ${n}`).join(", ")} (the single batch on shard ${shardOfBatch(prepared[0])}; the reader on ${/^env_(\d+)_/.exec(envelope.envelope_id)?.[1] ?? "?"})`;

  const rows = [
    [`1 batch of ${CLIENTS} alone: submit to every envelope settled`, `${fmt(single.seconds)} s`, `${fmt(CLIENTS / single.seconds, 0)} env/s`, "1.00x", `sent ${single.ends[0].last.counts.sent}`],
    [`${BATCHES} batches of ${CLIENTS} at once: submit to the last envelope settled`, `${fmt(mix.seconds)} s`, `${fmt(sent / mix.seconds, 0)} env/s`, ratio(mix.seconds, single.seconds), `sent ${sent} of ${BATCHES * CLIENTS}; progress polls unanswered in ${REQUEST_TIMEOUT_MS / 1000} s: ${mix.hung.length}; first batch done ${fmt(Math.min(...mix.ends.map((e) => e.seconds)))} s; shard(s) ${shards}`],
    [`status read p99, idle service (${READERS} conn, ${IDLE_SECONDS} s)`, `${fmt(idle.latency.p99)} ms`, `${fmt(idle.requests.average, 0)} req/s`, "1.00x", `p50 ${fmt(idle.latency.p50)} ms, max ${fmt(idle.latency.max)} ms, ${codesOf(idle)}`],
    [`status read p99 while the ${BATCHES} batches run (${READERS} conn)`, `${fmt(busy.latency.p99)} ms`, `${fmt(busy.requests.average, 0)} req/s`, ratio(busy.latency.p99, idle.latency.p99), `p50 ${fmt(busy.latency.p50)} ms, max ${fmt(busy.latency.max)} ms, ${codesOf(busy)}`],
  ];
  return { rows, seconds: mix.seconds };
}

export async function monthendSection(ctx) {
  const dir = join(ctx.tmp, "monthend");
  mkdirSync(dir, { recursive: true });
  const server = await startFreshServer(join(dir, "state"));
  const sctx = { base: server.base, operatorToken: server.secrets.OPERATOR_TOKEN };
  const op = { token: sctx.operatorToken };
  const failures = [];
  const goal = (ran, met) => (ran ? (met ? "MET" : "NOT MET") : "not run");
  try {
    // Placement as deployed (docs/decisions/shards.md 3): the operator opens every shard the deployment binds, and
    // each new organization goes to the open shard with the fewest envelopes (ties: fewer organizations). Local
    // state opens only shard 1 (migration 0020), which put every organization, so every batch, on one shard.
    const opened = [];
    for (const shard of await api(sctx.base, "GET", "/operator/shards", op)) {
      if (shard.state !== "open") await api(sctx.base, "PATCH", `/operator/shards/${shard.shard_id}`, { ...op, body: { state: "open" } });
      opened.push(shard.shard_id);
    }
    const batches = PARTS.has("batches") ? await batchRows(sctx, opened, failures) : null;
    const rows = batches?.rows ?? [];
    const f = PARTS.has("flood") ? await flood(sctx) : null;
    if (f) {
      failures.push(...f.failures);
      if (f.lost > 0) failures.push(`monthend, flood: ${f.lost} deliveries lost`);
      if (f.duplicates > 0) failures.push(`monthend, flood: ${f.duplicates} duplicate receipts of an event id`);
      rows.push([`webhook flood from one bulk send of ${CLIENTS} (3 receivers)`, `${fmt(f.perSecond, 0)}/s`, `p99 ${fmt(percentile(f.latencies, 0.99), 0)} ms`, "-", `${f.delivered} delivered, lost ${f.lost}, dup ${f.duplicates}; p50 ${fmt(percentile(f.latencies, 0.5), 0)} ms; its batch settled ${fmt(f.batchSeconds)} s after the submit (${fmt(f.bareSeconds)} s with no endpoint); first to last receipt ${fmt(f.flowingPerSecond, 0)}/s`]);
    }
    if (PARTS.has("floor")) {
      const floor = await floorRows(f?.delivered || 6 * CLIENTS);
      rows.push(...floor.rows);
      if (f && floor.fanMs) {
        // Locally the service's Worker, its Durable Objects and the queue consumer run their JavaScript in one workerd
        // isolate, one thing at a time: the flood's deliveries and the bulk send that produces them take turns in it.
        const bound = f.delivered / (f.bareSeconds + floor.fanMs / 1000);
        rows.push([
          `floor: one isolate's bound for the flood (the bulk send alone + ${f.delivered} bare fetches in ${ATTEMPT_LANES} lanes, one after the other)`,
          `${fmt(bound, 0)}/s`,
          "-",
          "-",
          `${fmt(f.bareSeconds)} s + ${fmt(floor.fanMs / 1000)} s; the flood reached ${fmt((100 * f.perSecond) / bound, 0)}% of it`,
        ]);
      }
    }
    return {
      title: `Month-end mix: ${BATCHES} bulk batches of ${CLIENTS} at once, status reads, a webhook flood (own wrangler dev, fresh state, local)`,
      columns: ["measure", "value", "rate / p99", "vs single", "detail"],
      rows,
      notes: [
        `Goal: ${BATCHES} batches settled in under ${TARGET_S} s -> ${goal(batches, batches?.seconds < TARGET_S)}; flood at least ${FLOOD_TARGET}/s -> ${goal(f, f?.perSecond >= FLOOD_TARGET)}.`,
        "Goals are reported, never asserted (timings depend on the machine); a batch that ends with an item unsent, a lost or duplicated delivery, or a read answered other than 200 fails the section. " +
          "Settled: the batch's progress answer says completed (polled every 250 ms per batch); every item must be sent. The status read is the partner route under autocannon, the same connections idle and under load.",
        "Flood p99: the event row's created_at (the payload timestamp) to its first receipt. Dup: 2xx receipts of an event id a receiver already had. " +
          "The floor rows run a bare Worker (no code of ours) in the same runtime: what workerd and the local queue simulator deliver at most to the same kind of receiver. " +
          "The last row adds the same bulk send's time with no endpoint to the bare fetches' time: locally one isolate runs the service's JavaScript (Worker, Durable Objects, queue consumer), so the flood cannot beat the two done one after the other by much; deployed, the batch's object and each consumer invocation have isolates of their own.",
      ],
      failures,
    };
  } finally {
    await stopServer(server);
  }
}
