// Local benchmark: `npm run bench`.
// Starts `wrangler dev` on a free loopback port with fresh local state, provisions an org, a partner
// key and an envelope through the operator API, load-tests a few routes with autocannon, and sizes
// the deploy bundle. Each entry of `sections` is an async function returning a table to print;
// later figures are added there. Env: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 50),
// BENCH_ONLY (comma-separated section names: latency, vault, templates, signing, bulk, webhooks, bundle, pdfmem).
// The bulk section sends BENCH_BULK_CLIENTS (default 1000) clients one envelope each through bulk send.
// The webhook section fans BENCH_WEBHOOK_EVENTS (default 2000) events out to 3 loopback receivers.
// Exits non-zero if any measured request failed (non-2xx, connection error) or a step broke; a missed
// latency target is reported, not failed, since local figures depend on the machine's load.
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ANSI, api, freePort, logDigest, root, run, startFreshServer, stopServer, WRANGLER } from "./lib/dev-server.mjs";

const DURATION = positiveInt("BENCH_DURATION", 10);
const CONNECTIONS = positiveInt("BENCH_CONNECTIONS", 50);
const WARMUP_SECONDS = 1; // unreported warm-up per route so the first (baseline) run does not pay for cold start
const P99_TARGET = 1.5; // partner reads within 1.5x of the bare route's p99
const BUNDLE_LIMIT = 10 * 1024 * 1024; // Workers paid plan: 10 MB after gzip

function positiveInt(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (Number.isInteger(n) && n >= 1) return n;
  console.error(`bench: FAILED: ${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  process.exit(2);
}

const log = (msg) => console.error(`bench: ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function provision(base, operatorToken) {
  const org = await api(base, "POST", "/operator/orgs", { token: operatorToken, body: { name: "Bench Org" } });
  const key = await api(base, "POST", `/operator/orgs/${org.org_id}/api-keys`, {
    token: operatorToken,
    body: { scopes: ["envelopes:read", "envelopes:write"], rate_limit_rpm: 1_000_000 },
  });
  const envelope = await api(base, "POST", "/partner/envelopes", { apiKey: key.api_key, body: newEnvelope() });
  return { apiKey: key.api_key, envelopeId: envelope.envelope_id };
}

const newEnvelope = () => ({ envelope_name: "Bench contract", customer_email: "bench@example.com", customer_name: "Bench Customer" });

/** One autocannon run; the first few distinct non-2xx answers are kept in `samples` to explain them. */
function cannon(opts, duration, samples = new Set()) {
  const onResponse = (status, body) => {
    if ((status < 200 || status > 299) && samples.size < 5) samples.add(`${status} ${String(body).slice(0, 300)}`);
  };
  return autocannon({ connections: CONNECTIONS, duration, ...opts, requests: [{ onResponse }] });
}

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "-");
const ratio = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}x` : "-");

// --- sections: each gets the context and returns { title, columns, rows, notes?, failures? } -----

async function latencySection(ctx) {
  const auth = { "x-api-key": ctx.apiKey };
  const routes = [
    { name: "GET /health (baseline)", opts: { url: `${ctx.base}/health` } },
    { name: "GET /partner/envelopes/:id/status", read: true, opts: { url: `${ctx.base}/api/v2/partner/envelopes/${ctx.envelopeId}/status`, headers: auth } },
    {
      name: "POST /partner/envelopes",
      opts: {
        url: `${ctx.base}/api/v2/partner/envelopes`,
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(newEnvelope()),
      },
    },
  ];
  const failures = [];
  const results = [];
  for (const route of routes) {
    log(`${route.name}: ${DURATION} s at ${CONNECTIONS} connections`);
    ctx.setPhase(route.name);
    await cannon(route.opts, WARMUP_SECONDS);
    const samples = new Set();
    const r = await cannon(route.opts, DURATION, samples);
    const codes = Object.entries(r.statusCodeStats).map(([code, s]) => `${code}x${s.count}`).join(" ");
    if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
      const examples = [...samples].map((b) => `\n      e.g. ${b}`).join("");
      failures.push(`${route.name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts of ${r.requests.total} (${codes || "no answers"})${examples}`);
    }
    results.push({ route, r, codes });
  }
  const base = results[0].r;
  const rows = results.map(({ route, r, codes }) => [
    route.name,
    fmt(r.requests.average, 0),
    fmt(r.latency.p50),
    fmt(r.latency.p99),
    ratio(r.requests.average, base.requests.average),
    ratio(r.latency.p50, base.latency.p50),
    ratio(r.latency.p99, base.latency.p99),
    String(r.non2xx + r.errors),
    codes,
  ]);
  const reads = results.filter(({ route }) => route.read);
  const met = reads.every(({ r }) => r.latency.p99 <= P99_TARGET * base.latency.p99);
  const reloads = routes.filter((route) => ctx.reloadsDuring(route.name) > 0);
  const worst = Math.max(...reads.map(({ r }) => r.latency.p99 / base.latency.p99));
  return {
    title: `Latency: ${DURATION} s per route, ${CONNECTIONS} connections, wrangler dev (local), ratios against GET /health`,
    columns: ["route", "req/s", "p50 ms", "p99 ms", "req/s vs base", "p50 vs base", "p99 vs base", "failed", "status codes"],
    rows,
    notes: [
      `Target: partner reads within ${P99_TARGET}x of the bare route's p99 -> ${met ? "MET" : "NOT MET"} (status read p99 is ${fmt(worst, 2)}x the baseline)`,
      ...reloads.map(
        (route) =>
          `Warning: wrangler dev reloaded ${ctx.reloadsDuring(route.name)}x during ${route.name} (a watched file changed), so its figures are disturbed; ` +
          `in-flight non-GET requests then get wrangler's 503 "Your worker restarted mid-request".`,
      ),
    ],
    failures,
  };
}

async function bundleSection(ctx) {
  ctx.setPhase("bundle build");
  const outdir = join(ctx.tmp, "bundle");
  const output = await run(WRANGLER, ["deploy", "--dry-run", "--outdir", outdir]);
  const files = readdirSync(outdir, { recursive: true }).filter((f) => f.endsWith(".js"));
  if (files.length === 0) throw new Error(`wrangler deploy --dry-run produced no .js file in ${outdir}`);
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const bytes = readFileSync(join(outdir, f));
    raw += bytes.length;
    gz += gzipSync(bytes).length;
  }
  const kib = (n) => `${fmt(n / 1024)} KiB`;
  return {
    title: "Worker bundle (wrangler deploy --dry-run)",
    columns: ["files", "raw", "gzipped", "limit (gzipped)", "used"],
    rows: [[files.join(", "), kib(raw), kib(gz), "10 MB (10240 KiB)", `${fmt((100 * gz) / BUNDLE_LIMIT, 2)}%`]],
    notes: [`wrangler's own figure: ${/Total Upload:.*/.exec(output.replace(ANSI, ""))?.[0] ?? "(not printed)"}`],
    failures: gz > BUNDLE_LIMIT ? [`gzipped bundle ${kib(gz)} is over the 10 MB limit`] : [],
  };
}

// --- webhooks: fan-out of BENCH_WEBHOOK_EVENTS events to 3 loopback receivers ---------------------

const WEBHOOK_EVENTS = positiveInt("BENCH_WEBHOOK_EVENTS", 2000);
const EVENT_CONCURRENCY = 20; // envelope creates in flight (each fires one envelope.created)

/**
 * A receiver on 127.0.0.1 answering 200, or with `flaky` 500 to every other request. It keeps each
 * event's first receipt and, for first attempts of a delivery (new X-Service-Delivery), the time from
 * the event's creation (payload `timestamp`) to receipt.
 */
function startReceiver({ flaky = false } = {}) {
  const r = { requests: 0, failedAnswers: 0, firstAttempts: 0, firstAttemptFailures: 0, seen: new Map(), deliveries: new Set(), latencies: [], lastReceipt: 0 };
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
        if (first) r.latencies.push(now - Date.parse(payload.timestamp));
        r.lastReceipt = now;
      }
      res.writeHead(200).end("ok");
    });
  });
  const server = r.server;
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

async function waitFor(done, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await sleep(200);
  return done();
}

const percentile = (values, q) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};

/**
 * Retries are minutes to hours apart (1 m ... 8 h) and wrangler dev cannot run the cron handler at a
 * chosen instant (/cdn-cgi/handler/scheduled does not reach a Worker with static assets), so the bench
 * proves eventual delivery the way an operator would recover a failing endpoint: replay every delivery
 * whose event the endpoint has not received (POST /webhooks/deliveries/:id/redeliver), then run the
 * cron handler (/__scheduled, wrangler dev --test-scheduled), whose sweep sends every due delivery.
 * Rounds repeat until nothing is missing. The retry schedule itself is tested on an injected clock
 * (test/jobs/webhook-retries.test.ts).
 */
async function replayUntilDelivered(ctx, tenant, endpointId, receiver) {
  const replayed = new Set();
  let rounds = 0;
  const missing = async () => {
    const out = [];
    for (const status of ["pending", "failed"]) {
      for (let page = 1; ; page++) {
        const list = await fetch(`${ctx.base}/api/v2/webhooks/endpoints/${endpointId}/deliveries?status=${status}&limit=100&page=${page}`, {
          headers: { authorization: `Bearer ${tenant.token}` },
        }).then((r) => r.json());
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
    const res = await fetch(`${ctx.base}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
    if (!res.ok) throw new Error(`/__scheduled answered ${res.status}: ${await res.text()}`);
  }
  return { rounds, redelivered: replayed.size };
}

async function fanOutScenario(ctx, name, { flaky }) {
  ctx.setPhase(`webhooks: ${name}`);
  const tenant = await webhookTenant(ctx, `Bench webhooks ${name}`);
  const receivers = await Promise.all([startReceiver(), startReceiver(), startReceiver({ flaky })]);
  try {
    const endpoints = [];
    for (const r of receivers) endpoints.push(await api(ctx.base, "POST", "/webhooks/endpoints", { token: tenant.token, body: { url: r.url, events: ["envelope.*"] } }));
    log(`webhooks, ${name}: ${WEBHOOK_EVENTS} events to 3 receivers`);
    const started = Date.now();
    await createEvents(ctx, tenant.apiKey);
    const createdIn = Date.now() - started;
    const firstPassDone = () => receivers.every((r) => r.stats.firstAttempts >= WEBHOOK_EVENTS);
    const settled = await waitFor(firstPassDone, 300_000);
    const firstPassMs = Math.max(...receivers.map((r) => r.stats.lastReceipt)) - started;
    const delivered = receivers.reduce((n, r) => n + r.stats.seen.size, 0);
    const latencies = receivers.flatMap((r) => r.stats.latencies);
    const firstAttempts = receivers.reduce((n, r) => n + r.stats.firstAttempts, 0);
    const firstFailures = receivers.reduce((n, r) => n + r.stats.firstAttemptFailures, 0);
    const retry = flaky && settled ? await replayUntilDelivered(ctx, tenant, endpoints[2].endpoint_id, receivers[2]) : { rounds: 0, redelivered: 0 };
    const lost = receivers.reduce((n, r) => n + (WEBHOOK_EVENTS - r.stats.seen.size), 0);
    const duplicates = receivers.reduce((n, r) => n + (r.stats.requests - r.stats.failedAnswers - r.stats.seen.size), 0);
    return {
      row: [
        name,
        String(WEBHOOK_EVENTS),
        `${fmt(WEBHOOK_EVENTS / (createdIn / 1000), 0)}`,
        `${fmt(delivered / (firstPassMs / 1000), 0)}`,
        fmt(percentile(latencies, 0.5), 0),
        fmt(percentile(latencies, 0.99), 0),
        `${firstFailures}/${firstAttempts}`,
        String(retry.rounds),
        String(retry.redelivered),
        String(lost),
      ],
      duplicates,
      failures: [
        ...(settled ? [] : [`webhooks, ${name}: first attempts incomplete after 300 s (${receivers.map((r) => r.stats.firstAttempts).join("/")} of ${WEBHOOK_EVENTS} per receiver)`]),
        ...(lost > 0 ? [`webhooks, ${name}: ${lost} event deliveries never received`] : []),
      ],
    };
  } finally {
    for (const r of receivers) r.server.close();
  }
}

async function webhookSection(ctx) {
  const healthy = await fanOutScenario(ctx, "3 healthy endpoints", { flaky: false });
  const failing = await fanOutScenario(ctx, "1 of 3 failing every other request", { flaky: true });
  return {
    title: `Webhook fan-out: ${WEBHOOK_EVENTS} envelope.created events (partner POSTs, ${EVENT_CONCURRENCY} in flight) to 3 loopback receivers, wrangler dev (local)`,
    columns: ["scenario", "events", "events/s", "deliveries/s", "p50 ms", "p99 ms", "1st-attempt fails", "replay rounds", "redelivered", "lost"],
    rows: [healthy.row, failing.row],
    notes: [
      "deliveries/s: events received (first time) by all receivers over the time from the first event's creation to the last first-pass receipt.",
      "p50/p99: event creation (payload timestamp) to receipt, first attempts that succeeded; both hops through the queue included. " +
        "When events/s x 3 exceeds deliveries/s, later events wait behind a growing backlog, and that wait is most of the figure: locally one consumer " +
        "takes one batch of 50 at a time and every D1 round trip goes to one SQLite-backed simulator (Cloudflare runs consumers concurrently).",
        "Failing endpoint: then every delivery whose event it has not received is replayed (redeliver) and the cron handler's sweep run (/__scheduled), " +
        "in rounds until nothing is missing (the retry schedule itself is tested on an injected clock). lost = events some receiver never got.",
      `Duplicate receipts (at-least-once): ${healthy.duplicates} healthy run, ${failing.duplicates} failing run.`,
    ],
    failures: [...healthy.failures, ...failing.failures],
  };
}

// --- vault: vault-in of a ~50 MB PDF, and the integrity sweep's re-hash throughput ---------------

const VAULT_PDF_PAGES = 10;
const VAULT_IMAGE_BYTES = 5_200_000; // per page: 10 pages make a PDF just under the 50 MiB upload limit
const SWEEP_RUNS = 5;

/** A scanned-contract-like PDF: each page one uncompressed 8-bit grey image of random pixels. */
async function bigPdf() {
  const { PDFDocument, pushGraphicsState, popGraphicsState, concatTransformationMatrix, drawObject } = await import("pdf-lib");
  const doc = await PDFDocument.create();
  const width = 2600;
  const height = VAULT_IMAGE_BYTES / width;
  for (let i = 0; i < VAULT_PDF_PAGES; i++) {
    const page = doc.addPage([612, 792]);
    const image = doc.context.register(
      doc.context.stream(randomBytes(VAULT_IMAGE_BYTES), { Type: "XObject", Subtype: "Image", Width: width, Height: height, ColorSpace: "DeviceGray", BitsPerComponent: 8 }),
    );
    const name = page.node.newXObject("Scan", image);
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(612, 0, 0, 792, 0, 0), drawObject(name), popGraphicsState());
  }
  return doc.save({ useObjectStreams: false });
}

/** workerd processes of the wrangler dev process group (wrangler is the group leader). */
function workerdPids(groupId) {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === groupId && stat.includes("(workerd)")) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** A kB figure of /proc/<pid>/status, or NaN once the process is gone (wrangler dev restarted it). */
function statusKib(pid, field) {
  try {
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

async function vaultSection(ctx) {
  ctx.setPhase("vault");
  const op = { token: ctx.operatorToken };
  const org = await api(ctx.base, "POST", "/operator/orgs", { ...op, body: { name: "Bench Vault" } });
  const key = await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/api-keys`, {
    ...op,
    body: { scopes: ["envelopes:write", "vault:write", "vault:read"], rate_limit_rpm: 1_000_000 },
  });
  const envelope = await api(ctx.base, "POST", "/partner/envelopes", {
    apiKey: key.api_key,
    body: { ...newEnvelope(), document_source: "upload", secured_party: { name: "Bench Lender" } },
  });
  log("vault: generating the PDF");
  const pdf = await bigPdf();
  const mb = pdf.length / 1e6;
  const failures = [];

  // Peak resident memory during the upload: every workerd process of wrangler dev (the Worker's runtime
  // and miniflare's own) has its high-water mark reset (clear_refs 5); the largest rise is reported.
  const pids = ctx.serverPid ? workerdPids(ctx.serverPid) : [];
  const memoryNotes = [];
  const rssBefore = new Map();
  for (const pid of pids) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, "5");
      rssBefore.set(pid, statusKib(pid, "VmRSS"));
    } catch (err) {
      memoryNotes.push(`Peak memory of workerd ${pid} not measurable here (${err.message}).`);
    }
  }
  if (pids.length === 0) memoryNotes.push("Peak memory not measurable here (no workerd process found in wrangler's process group).");

  log(`vault: POST vault-in-upload with a ${fmt(mb)} MB PDF`);
  const form = new FormData();
  form.append("file", new Blob([pdf], { type: "application/pdf" }), "scan.pdf");
  const started = performance.now();
  const res = await fetch(`${ctx.base}/api/v2/partner/envelopes/${envelope.envelope_id}/vault-in-upload`, {
    method: "POST",
    headers: { "x-api-key": key.api_key },
    body: form,
  });
  const body = await res.text();
  const vaultMs = performance.now() - started;
  if (res.status !== 200) failures.push(`vault-in-upload of ${fmt(mb)} MB answered ${res.status}: ${body.slice(0, 300)}`);
  const rises = [...rssBefore]
    .map(([pid, before]) => ({ pid, before, peak: statusKib(pid, "VmHWM") }))
    .filter((r) => Number.isFinite(r.peak))
    .sort((a, b) => b.peak - b.before - (a.peak - a.before));
  if (rssBefore.size > 0 && rises.length < rssBefore.size) memoryNotes.push("A workerd process exited during the upload (wrangler dev reloaded): its peak is not counted.");
  const top = rises[0];

  // The authoritative copy comes back byte-identical.
  const url = await api(ctx.base, "GET", `/partner/envelopes/${envelope.envelope_id}/vault/signed-url`, { apiKey: key.api_key });
  const downloadStarted = performance.now();
  const downloaded = Buffer.from(await (await fetch(url.signed_url.replace(/^https?:\/\/[^/]+/, ctx.base))).arrayBuffer());
  const downloadMs = performance.now() - downloadStarted;
  if (!downloaded.equals(Buffer.from(pdf))) failures.push("the authoritative download differs from the uploaded PDF");

  // Sweep: each weekly trigger starts a cycle and re-hashes the vaulted document (the only one here).
  const sweepMs = [];
  for (let i = 0; i < SWEEP_RUNS; i++) {
    const t0 = performance.now();
    const run = await fetch(`${ctx.base}/__scheduled?cron=${encodeURIComponent("0 3 * * 0")}`);
    await run.text();
    sweepMs.push(performance.now() - t0);
    if (!run.ok) failures.push(`/__scheduled (weekly sweep) answered ${run.status}`);
  }
  const digestMs = [];
  for (let i = 0; i < SWEEP_RUNS; i++) {
    const t0 = performance.now();
    await globalThis.crypto.subtle.digest("SHA-256", pdf);
    digestMs.push(performance.now() - t0);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const sweepRate = mb / (median(sweepMs) / 1000);
  const digestRate = mb / (median(digestMs) / 1000);
  const mib = (kib) => `${fmt(kib / 1024, 0)} MiB`;
  return {
    title: `Vault: a ${fmt(mb)} MB PDF (${VAULT_PDF_PAGES} scanned pages) through wrangler dev (local)`,
    columns: ["measure", "value", "detail"],
    rows: [
      ["vault-in-upload", `${fmt(vaultMs / 1000, 2)} s`, `${fmt(mb / (vaultMs / 1000))} MB/s; upload, PDF check, marked copy, R2 writes, certificate, one D1 batch`],
      [
        "workerd peak RSS during vault-in",
        top ? mib(top.peak) : "n/a",
        top ? `${mib(top.before)} before -> +${mib(top.peak - top.before)} for the request (largest rise of ${rises.length} workerd processes)` : "-",
      ],
      ["authoritative download (re-hash + stream)", `${fmt(downloadMs / 1000, 2)} s`, `${fmt(mb / (downloadMs / 1000))} MB/s, bytes identical`],
      ["sweep re-hash (weekly cron, /__scheduled)", `${fmt(sweepRate)} MB/s`, `median of ${SWEEP_RUNS}: ${fmt(median(sweepMs), 0)} ms per ${fmt(mb)} MB document, R2 read + DigestStream + D1 records`],
      ["bare crypto.subtle.digest (Node webcrypto)", `${fmt(digestRate)} MB/s`, `median of ${SWEEP_RUNS}: ${fmt(median(digestMs), 0)} ms, same bytes`],
      ["sweep / bare digest", `${fmt(sweepRate / digestRate, 2)}x`, "share of raw hashing speed the sweep achieves"],
    ],
    notes: [
      "Peak RSS is the workerd process's high-water mark (VmHWM, reset before the request): it includes the runtime, the local R2 and D1 simulators and " +
        "the request buffers, so it is an upper bound on what the isolate itself held; production's 128 MB limit counts the isolate's heap and buffers only.",
      "The sweep's time per document also covers reading it from the local R2 simulator (disk-backed) and recording the check in D1; hashing " +
        "itself (DigestStream, native) is a fraction of it, so the ratio says more about local storage than about production throughput.",
      ...memoryNotes,
    ],
    failures,
  };
}

// --- templates: anchor resolution against unpdf's bare extraction, memory, 50 MB template upload ----

const ANCHOR_PAGES = 200;
const MEMORY_PAGES = [200, 1600, 3200];
const ANCHOR_RUNS = 5;

/**
 * scripts/bench-anchors.ts bundled for Node with esbuild: the Worker's own resolver (pdf-lib and
 * unpdf's pdf.js run unchanged outside workerd), so its cost is compared with unpdf's bare text
 * extraction of the same PDF in the same process.
 */
async function anchorModule(ctx) {
  const { build } = await import("esbuild");
  const outfile = join(ctx.tmp, "bench-anchors.mjs");
  await build({
    entryPoints: [join(root, "scripts", "bench-anchors.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "warning",
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  return { anchors: await import(outfile), outfile };
}

/** Peak live memory of one open + full scan, in a fresh Node process (see peakMemory in bench-anchors.ts). */
async function scanMemory(outfile, file) {
  const out = await run(process.execPath, ["--expose-gc", outfile, "memory", file]);
  return JSON.parse(out.split("\n").findLast((line) => line.startsWith("{")));
}

/** The largest VmHWM rise of wrangler dev's workerd processes while `fn` runs (clear_refs 5 resets it). */
async function workerdPeakKib(ctx, fn) {
  const before = new Map();
  for (const pid of ctx.serverPid ? workerdPids(ctx.serverPid) : []) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, "5");
      before.set(pid, statusKib(pid, "VmRSS"));
    } catch {
      // not measurable for this process
    }
  }
  const result = await fn();
  const rises = [...before].map(([pid, rss]) => statusKib(pid, "VmHWM") - rss).filter(Number.isFinite);
  return { result, riseKib: rises.length ? Math.max(...rises) : NaN };
}

async function uploadTemplateTimed(ctx, bytes, fields) {
  const form = new FormData();
  form.append("file", new Blob([bytes], { type: "application/pdf" }), "template.pdf");
  form.append("name", "Bench template");
  if (fields) form.append("fields_json", JSON.stringify(fields));
  const started = performance.now();
  const res = await fetch(`${ctx.base}/api/v2/partner/templates`, { method: "POST", headers: { "x-api-key": ctx.apiKey }, body: form });
  const text = await res.text();
  return { ms: performance.now() - started, status: res.status, text };
}

async function templatesSection(ctx) {
  ctx.setPhase("templates");
  const failures = [];
  const { anchors, outfile } = await anchorModule(ctx);
  log(`templates: ${ANCHOR_PAGES}-page PDF, ${anchors.ANCHORS} anchors, ${ANCHOR_RUNS} runs each`);
  const pdf = await anchors.contractPdf(ANCHOR_PAGES);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const bare = [];
  const resolved = [];
  const anchorsOnly = [];
  for (let i = 0; i < ANCHOR_RUNS; i++) {
    bare.push(await anchors.bareExtraction(pdf));
    resolved.push((await anchors.resolveAnchors(pdf, true)).ms);
    anchorsOnly.push((await anchors.resolveAnchors(pdf, false)).ms);
  }
  const rows = [
    [`unpdf extractText, ${ANCHOR_PAGES} pages (bare)`, `${fmt(median(bare), 0)} ms`, `${fmt(median(bare) / ANCHOR_PAGES, 2)} ms/page, Node`],
    [`resolve ${anchors.ANCHORS} anchors + tag scan (upload path)`, `${fmt(median(resolved), 0)} ms`, `${ratio(median(resolved), median(bare))} of bare extraction`],
    [`resolve ${anchors.ANCHORS} anchors only (POST .../fields)`, `${fmt(median(anchorsOnly), 0)} ms`, `${ratio(median(anchorsOnly), median(bare))} of bare extraction`],
  ];

  log("templates: peak live memory of a full scan, growing PDFs");
  const sizes = [];
  for (const pages of MEMORY_PAGES) {
    const file = join(ctx.tmp, `contract-${pages}.pdf`);
    writeFileSync(file, await anchors.contractPdf(pages));
    sizes.push({ label: `${pages}-page text PDF`, file });
  }
  const scanned = await bigPdf();
  const scannedFile = join(ctx.tmp, "scanned.pdf");
  writeFileSync(scannedFile, scanned);
  sizes.push({ label: `${VAULT_PDF_PAGES}-page scanned PDF`, file: scannedFile });
  for (const { label, file } of sizes) {
    const m = await scanMemory(outfile, file);
    rows.push([`scan memory: ${label}`, `${fmt(m.peak_mb)} MiB`, `file ${fmt(m.bytes_mb)} MiB; peak live heap + buffers during open + scan`]);
  }

  log(`templates: POST /partner/templates through wrangler dev (${fmt(scanned.length / 1e6)} MB, and the ${ANCHOR_PAGES}-page PDF with and without anchors)`);
  await uploadTemplateTimed(ctx, await anchors.contractPdf(anchors.ANCHORS)); // warm-up: the isolate compiles pdf.js once
  const big = await workerdPeakKib(ctx, () => uploadTemplateTimed(ctx, scanned));
  const plainRuns = [];
  const anchorRuns = [];
  for (let i = 0; i < 3; i++) {
    plainRuns.push(await uploadTemplateTimed(ctx, pdf));
    anchorRuns.push(await uploadTemplateTimed(ctx, pdf, anchors.anchorFields()));
  }
  for (const r of [big.result, ...plainRuns, ...anchorRuns]) {
    if (r.status !== 200) failures.push(`templates: POST /partner/templates answered ${r.status}: ${r.text.slice(0, 300)}`);
  }
  const plain = { ms: median(plainRuns.map((r) => r.ms)) };
  const withAnchors = { ms: median(anchorRuns.map((r) => r.ms)) };
  rows.push(
    [`upload ${fmt(scanned.length / 1e6)} MB scanned PDF (wrangler dev)`, `${fmt(big.result.ms / 1000, 2)} s`, `${fmt(scanned.length / 1e6 / (big.result.ms / 1000))} MB/s; workerd peak RSS +${Number.isFinite(big.riseKib) ? `${fmt(big.riseKib / 1024, 0)} MiB` : " n/a"}`],
    [`upload ${ANCHOR_PAGES}-page PDF, no fields (wrangler dev)`, `${fmt(plain.ms, 0)} ms`, "median of 3: store + tag scan + template row"],
    [`upload ${ANCHOR_PAGES}-page PDF, ${anchors.ANCHORS} anchors (wrangler dev)`, `${fmt(withAnchors.ms, 0)} ms`, `median of 3: ${ratio(withAnchors.ms, plain.ms)} of the plain upload`],
  );
  return {
    title: `Templates: anchor resolution (Node, the Worker's resolver) and template uploads (wrangler dev, local)`,
    columns: ["measure", "value", "detail"],
    rows,
    notes: [
      "Anchors are spread evenly, the last on the last page, so every page is read; the upload path also scans every page for embedded tags.",
      "Scan memory: a fresh Node process reads the PDF, hands it to unpdf's pdf.js and scans every page as an upload does; as the scan starts and " +
        "every 250 ms a full GC runs and heap in use plus external buffers is read; the peak rise over the baseline before the file was read is shown. Text-dense pages cost " +
        "about 10 KiB each on top of the file; a scanned page only its bytes (images are never decoded).",
      "workerd peak RSS is the process high-water mark (runtime, local R2/D1 simulators and request buffers included), an upper bound on the isolate's share.",
    ],
    failures,
  };
}

const SIGNING_PAGES = 10;
const SIGNING_RUNS = positiveInt("BENCH_SIGNING_RUNS", 7);

// A 10-page letter PDF with a line of text per page, and a buyer/cosigner template on it: text and a
// typed signature for the buyer on page 1, a typed signature and a checkbox for the cosigner on page 10.
async function signingTemplate(ctx, apiKey) {
  const { PDFDocument, StandardFonts } = await import("pdf-lib");
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= SIGNING_PAGES; i++) doc.addPage([612, 792]).drawText(`Retail installment contract, page ${i}`, { x: 72, y: 740, size: 12, font });
  const bytes = await doc.save();
  const field = (name, type, role, page, y, extra = {}) => ({ name, type, role, placement: { mode: "absolute", areas: [{ page, x: 0.1, y, w: 0.4, h: 0.04 }] }, ...extra });
  const form = new FormData();
  form.append("file", new Blob([bytes], { type: "application/pdf" }), "contract.pdf");
  form.append("name", "Bench signing template");
  form.append(
    "fields_json",
    JSON.stringify([
      field("buyer_name", "text", "buyer", 1, 0.3, { required: true }),
      field("buyer_signature", "signature", "buyer", SIGNING_PAGES, 0.6, { required: true }),
      field("cosigner_signature", "signature", "cosigner", SIGNING_PAGES, 0.7, { required: true }),
      field("cosigner_agree", "checkbox", "cosigner", SIGNING_PAGES, 0.8),
    ]),
  );
  const res = await fetch(`${ctx.base}/api/v2/partner/templates`, { method: "POST", headers: { "x-api-key": apiKey }, body: form });
  const text = await res.text();
  if (!res.ok) throw new Error(`template upload answered ${res.status}: ${text}`);
  return JSON.parse(text).data.template_id;
}

async function signingSection(ctx) {
  ctx.setPhase("signing");
  const failures = [];
  const org = await api(ctx.base, "POST", "/operator/orgs", { token: ctx.operatorToken, body: { name: "Bench Signing Org" } });
  const key = await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/api-keys`, {
    token: ctx.operatorToken,
    body: { scopes: ["envelopes:read", "envelopes:write", "esign:write"], rate_limit_rpm: 1_000_000 },
  });
  const apiKey = key.api_key;
  const templateId = await signingTemplate(ctx, apiKey);
  const submit = async (slug, values) => {
    const started = performance.now();
    const res = await fetch(`${ctx.base}/api/v2/signing/${slug}/submit`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ values }) });
    const text = await res.text();
    return { ms: performance.now() - started, status: res.status, text };
  };
  log(`signing: ${SIGNING_RUNS + 1} two-signer envelopes on a ${SIGNING_PAGES}-page PDF (first unreported: warm-up)`);
  const first = [];
  const last = [];
  for (let i = 0; i <= SIGNING_RUNS; i++) {
    const envelope = await api(ctx.base, "POST", "/partner/envelopes", { apiKey, body: { ...newEnvelope(), template_id: templateId } });
    const sent = await api(ctx.base, "POST", `/partner/envelopes/${envelope.envelope_id}/send`, {
      apiKey,
      body: {
        send_email: false,
        signers: [
          { role: "buyer", email: "buyer@example.com", name: "Bench Buyer", routing_order: 1 },
          { role: "cosigner", email: "cosigner@example.com", name: "Bench Cosigner", routing_order: 2 },
        ],
      },
    });
    const slug = (role) => sent.signers.find((s) => s.role === role).slug;
    const a = await submit(slug("buyer"), { buyer_name: "Bench Buyer", buyer_signature: "Bench Buyer" });
    const b = await submit(slug("cosigner"), { cosigner_signature: "Bench Cosigner", cosigner_agree: true });
    const after = await api(ctx.base, "GET", `/partner/envelopes/${envelope.envelope_id}`, { apiKey });
    for (const r of [a, b]) if (r.status !== 200) failures.push(`signing: submit answered ${r.status}: ${r.text.slice(0, 300)}`);
    if (after.status !== "completed") failures.push(`signing: envelope ${envelope.envelope_id} is ${after.status} after the last submit`);
    if (i === 0) continue;
    first.push(a.ms);
    last.push(b.ms);
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return {
    title: `Signing: last signer's submit to completed with the stamped PDF stored (${SIGNING_PAGES}-page document, wrangler dev, local)`,
    columns: ["measure", "median", "min", "max"],
    rows: [
      ["last signer's submit -> completed (stamp + certificate + R2 + batch)", `${fmt(median(last), 0)} ms`, `${fmt(Math.min(...last), 0)} ms`, `${fmt(Math.max(...last), 0)} ms`],
      ["first signer's submit (values + events only)", `${fmt(median(first), 0)} ms`, `${fmt(Math.min(...first), 0)} ms`, `${fmt(Math.max(...first), 0)} ms`],
    ],
    notes: [
      `Median of ${SIGNING_RUNS} envelopes (BENCH_SIGNING_RUNS). The last submit answers only after the signed PDF is in R2 and the envelope is completed, so its round trip is the time to completion; ` +
        "the GET that follows checks the status. Typed signatures (text); a drawn PNG adds its decode and embed.",
    ],
    failures,
  };
}

// --- bulk send: BENCH_BULK_CLIENTS (default 1000) clients from submit to the last item settled -----------

const BULK_CLIENTS = positiveInt("BENCH_BULK_CLIENTS", 1000);
const BULK_TARGET_S = 30;
const BULK_POLL_CONNECTIONS = 10;

/** autocannon until `stop()` is called; resolves with its result. */
function cannonUntilStopped(opts) {
  let instance;
  const done = new Promise((resolve, reject) => {
    instance = autocannon({ connections: BULK_POLL_CONNECTIONS, duration: 600, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
  return { stop: () => instance.stop(), done };
}

async function bulkSection(ctx) {
  ctx.setPhase("bulk setup");
  const { PDFDocument, StandardFonts } = await import("pdf-lib");
  const op = { token: ctx.operatorToken };
  const org = await api(ctx.base, "POST", "/operator/orgs", { ...op, body: { name: "Bench Bulk Dealer Group" } });
  const key = await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/api-keys`, { ...op, body: { scopes: ["envelopes:read", "envelopes:write"], rate_limit_rpm: 1_000_000 } });
  const user = await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/users`, { ...op, body: { email: "bulk-sender@bench.example", name: "Bench Sender", role: "admin" } });
  const { access_token: admin } = await api(ctx.base, "POST", `/operator/users/${user.user_id}/access-tokens`, { ...op, body: { org_id: org.org_id, ttl_seconds: 3600 } });
  const doc = await PDFDocument.create();
  doc.addPage([612, 792]).drawText("Rate change addendum", { x: 72, y: 700, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  const area = (y) => ({ mode: "absolute", areas: [{ page: 1, x: 0.1, y, w: 0.3, h: 0.05 }] });
  const up = await uploadTemplateTimed({ ...ctx, apiKey: key.api_key }, await doc.save(), [
    { name: "client_signature", type: "signature", role: "client", required: true, placement: area(0.5) },
    { name: "customer_name", type: "text", role: "client", placement: area(0.3) },
  ]);
  if (up.status !== 200) throw new Error(`template upload answered ${up.status}: ${up.text}`);
  log(`bulk: creating ${BULK_CLIENTS} customers`);
  const customers = [];
  for (let i = 0; i < BULK_CLIENTS; i += 25) {
    const chunk = Array.from({ length: Math.min(25, BULK_CLIENTS - i) }, (_, j) => i + j);
    customers.push(
      ...(await Promise.all(chunk.map((n) => api(ctx.base, "POST", `/operator/orgs/${org.org_id}/customers`, { ...op, body: { name: `Client ${n}`, email: `client${n}@bench.example` } })))).map((c) => c.customer_id),
    );
  }
  const console_ = (method, path, body) => api(ctx.base, method, path, { token: admin, body });
  const batch = await console_("POST", "/bulk-send", { name: "Rate change addendum", document_source: "template", source_template_id: JSON.parse(up.text).data.template_id });
  await console_("POST", "/esign/builder-session", { batch_id: batch.batch_id });
  await console_("POST", `/bulk-send/${batch.batch_id}/items`, { customer_ids: customers });

  ctx.setPhase("bulk run");
  log(`bulk: submit; polling GET /bulk-send/:id and GET /health with ${BULK_POLL_CONNECTIONS} connections each until the batch ends`);
  const progressUrl = `${ctx.base}/api/v2/bulk-send/${batch.batch_id}`;
  const auth = { authorization: `Bearer ${admin}`, "x-org-id": org.org_id };
  const started = performance.now();
  await console_("POST", `/bulk-send/${batch.batch_id}/submit`);
  const progress = cannonUntilStopped({ url: progressUrl, headers: auth });
  const bare = cannonUntilStopped({ url: `${ctx.base}/health` });
  let last;
  for (;;) {
    last = await console_("GET", `/bulk-send/${batch.batch_id}?limit=1`);
    if (["completed", "cancelled", "failed"].includes(last.batch.status)) break;
    if (performance.now() - started > 600_000) break;
    await sleep(250);
  }
  const seconds = (performance.now() - started) / 1000;
  progress.stop();
  bare.stop();
  const [p, b] = await Promise.all([progress.done, bare.done]);
  const failures = [];
  if (last.batch.status !== "completed" || last.counts.sent !== BULK_CLIENTS) failures.push(`bulk: batch ended ${last.batch.status} with counts ${JSON.stringify(last.counts)}`);
  if (p.non2xx > 0 || p.errors > 0) failures.push(`bulk: progress route ${p.non2xx} non-2xx, ${p.errors} errors`);
  return {
    title: `Bulk send: ${BULK_CLIENTS} clients from submit to the last item settled (wrangler dev, local)`,
    columns: ["measure", "value", "vs GET /health"],
    rows: [
      ["total time", `${fmt(seconds)} s`, ""],
      ["envelopes/s", fmt(last.counts.sent / seconds), ""],
      [`GET /bulk-send/:id p99 while it runs (${BULK_POLL_CONNECTIONS} conn, ${p.requests.total} req)`, `${fmt(p.latency.p99)} ms`, ratio(p.latency.p99, b.latency.p99)],
      [`GET /bulk-send/:id p50`, `${fmt(p.latency.p50)} ms`, ratio(p.latency.p50, b.latency.p50)],
      [`GET /health p99 in the same run (${b.requests.total} req)`, `${fmt(b.latency.p99)} ms`, "1.00x"],
    ],
    notes: [
      `Target: under ${BULK_TARGET_S} s for ${BULK_CLIENTS} clients -> ${seconds < BULK_TARGET_S ? "MET" : "NOT MET"}.`,
      "Bound: one Durable Object runs the batch, 50 items per alarm with 8 in flight; each envelope is ~8 D1 round trips (claim, create batch, send reads and batch, settle), " +
        "and local D1 is one SQLite file written by one thread, so the D1 writes (shared with the pollers' reads) set the pace, not the Worker's CPU.",
    ],
    failures,
  };
}

// --- pdfmem: peak memory of completion and vault-in on growing PDFs (Node, the Worker's own code) ---

const PDFMEM_SIZES_MB = [5, 10, 12, 15, 20, 35, 50];

/**
 * scripts/bench-pdfmem.ts bundled for Node: completion's PDF work (stamp, certificate page, seal) and
 * vault-in's (parse, copy marking, append) on scanned PDFs of growing size, each run in a fresh
 * process (--expose-gc). Reported, never asserted: they show how large an upload completion can still finish in 128 MB.
 */
async function pdfMemorySection(ctx) {
  ctx.setPhase("pdfmem");
  const { build } = await import("esbuild");
  const { generateSealCertificate } = await import("./lib/seal-cert.mjs");
  const outfile = join(ctx.tmp, "bench-pdfmem.mjs");
  await build({
    entryPoints: [join(root, "scripts", "bench-pdfmem.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "warning",
    banner: { js: "import { createRequire as __benchRequire } from 'node:module'; const require = __benchRequire(import.meta.url);" },
  });
  const sealFile = join(ctx.tmp, "seal.json");
  writeFileSync(sealFile, JSON.stringify(await generateSealCertificate({ commonName: "esign-vault bench seal" })));
  const rows = [];
  for (const mb of PDFMEM_SIZES_MB) {
    const file = join(ctx.tmp, `scanned-${mb}.pdf`);
    await run(process.execPath, [outfile, "make", file, String(mb)]);
    log(`pdfmem: ${mb} MB scanned PDF`);
    for (const which of ["completion", "vault"]) {
      const out = await run(process.execPath, ["--expose-gc", outfile, "memory", file, sealFile, which]);
      const m = JSON.parse(out.split("\n").findLast((line) => line.startsWith("{")));
      rows.push([`${which === "completion" ? "completion (stamp + certificate + seal)" : "vault-in (mark copy + append)"}, ${fmt(m.bytes_mb)} MiB file`, `${fmt(m.peak_mb, 0)} MiB`, `${fmt(m.peak_mb / m.bytes_mb, 1)}x the file; RSS high-water +${fmt(m.hwm_rise_mb, 0)} MiB`]);
    }
    rmSync(file, { force: true });
  }
  return {
    title: "PDF memory: completion and vault-in on scanned PDFs (Node, the Worker's own modules)",
    columns: ["measure", "peak live", "detail"],
    rows,
    notes: [
      "Peak live = V8 heap in use + external buffers after a full GC, sampled every 100 ms and at the end, over the baseline before the file was read (the input included). " +
        "pdf-lib works in long synchronous stretches, so it is a floor; the RSS high-water rise (garbage included) is the ceiling.",
      "The 128 MB isolate less ~30 MiB for the Worker leaves ~98 MiB: uploads are limited to 12 MiB (MAX_PDF_BYTES) so that every accepted document can be completed and vaulted.",
    ],
  };
}

// Webhooks run last of the server sections: they load wrangler dev the hardest.
const ALL_SECTIONS = { latency: latencySection, vault: vaultSection, templates: templatesSection, signing: signingSection, bulk: bulkSection, webhooks: webhookSection, bundle: bundleSection, pdfmem: pdfMemorySection };
// BENCH_ONLY=latency,vault runs a subset (names: the keys above); default: all, in this order.
const only = (process.env.BENCH_ONLY ?? "").split(",").map((s) => s.trim()).filter(Boolean);
const unknownSections = only.filter((name) => !(name in ALL_SECTIONS));
if (unknownSections.length > 0) {
  console.error(`bench: FAILED: unknown BENCH_ONLY section(s) ${unknownSections.join(", ")}; known: ${Object.keys(ALL_SECTIONS).join(", ")}`);
  process.exit(2);
}
const sections = only.length > 0 ? only.map((name) => ALL_SECTIONS[name]) : Object.values(ALL_SECTIONS);

function printTable({ title, columns, rows, notes = [] }) {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  ").trimEnd();
  console.log(`\n${title}\n`);
  console.log(line(columns));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(line(r));
  for (const n of notes) console.log(`\n${n}`);
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), "esign-bench-"));
  let server;
  const stop = async (signal) => {
    console.error(`\nbench: interrupted (${signal}); stopping wrangler dev`);
    await stopServer(server);
    rmSync(tmp, { recursive: true, force: true });
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", stop).once("SIGTERM", stop);
  try {
    log("building assets, applying D1 migrations to a fresh local state, starting wrangler dev");
    server = await startFreshServer(join(tmp, "state"));
    const { secrets } = server;
    log(`wrangler dev answers on ${server.base}; provisioning`);
    server.watching = true;
    server.phase = "provisioning";
    const ctx = {
      tmp,
      base: server.base,
      ...(await provision(server.base, secrets.OPERATOR_TOKEN)),
      operatorToken: secrets.OPERATOR_TOKEN,
      serverPid: server.child.pid, // wrangler leads the process group that workerd runs in
      setPhase: (p) => (server.phase = p), // labels wrangler's log lines with what was running
      reloadsDuring: (p) => server.reloads.get(p) ?? 0,
    };

    const failures = [];
    // A section that breaks is reported and the others still run, so one failure hides no figures.
    for (const section of sections) {
      try {
        const result = await section(ctx);
        printTable(result);
        failures.push(...(result.failures ?? []));
      } catch (err) {
        console.error(`\nbench: section ${section.name} FAILED: ${err.message}`);
        failures.push(`${section.name}: ${err.message}`);
      }
    }
    if (failures.length > 0) throw new Error(`${failures.length} check(s) failed:\n${failures.map((f) => `  - ${f}`).join("\n")}`);
  } catch (err) {
    console.error(`\nbench: FAILED: ${err.message}`);
    process.exitCode = 1;
  } finally {
    const digest = logDigest(server);
    if (digest.length > 0) console.error(`\nbench: wrangler dev log during the run (2xx request lines omitted):\n${digest.join("\n")}`);
    await stopServer(server);
    rmSync(tmp, { recursive: true, force: true });
  }
  if (!process.exitCode) console.error("\nbench: OK");
}

await main();
