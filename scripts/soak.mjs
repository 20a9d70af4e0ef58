// The soak: `npm run soak [-- --minutes N] [--limit-seconds S]` (default 10 minutes; S bounds the whole
// run, default N minutes + 600 s). Loopback only: starts the local service (scripts/lib/dev-server.mjs, as
// the bench does) with fresh state and faults on (FAULTS, src/lib/faults.ts, at SOAK_FAULTS or the rates
// below: >= 1% of D1 and R2 calls fail, 1% of queue messages are delivered twice), email through the
// Postmark transport to a stand-in here, and drives mixed traffic at a fixed rate (SOAK_RATE requests/s,
// default 4; at most rate x seconds requests): creates, paper vault-ins, status reads and lists, one bulk
// batch, signing through the signer API with the links the invitations carried, control transfers and one
// pool of 3 records to a second organization, and 4 webhook endpoints (ok, slow, failing, flapping). Then
// it pauses the faults, lets the crons catch up (the minute cron through /__scheduled, each run's clock
// 9 h past the last: src/lib/cron-clock.ts), and runs the invariant check: GET /dev/invariants inside the
// Worker (chains, vaulted objects, nothing stuck, every delivery settled once per event and endpoint,
// every email due sent, usage equal to the records) and, on this side, what the receivers counted (every
// event reached every endpoint at least once, counted once per event id; every email sent reached the
// mail stand-in once; every 5xx in the error shape with X-Request-Id, none a 500). Prints a table; exits
// non-zero on any broken invariant or past its limit, cleaning up its server and receivers either way.
// To explain a run afterwards: SOAK_SERVER_LOG=<file> (everything wrangler dev prints), SOAK_KEEP_STATE=1
// (the local databases are left in place, their path printed), SOAK_VERBOSE=1 (each cron run, each signing).
import { createServer } from "node:http";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { api, fetchWithDeadline, logDigest, randomSecrets, startFreshServer, stopServer } from "./lib/dev-server.mjs";
import { sleep } from "./lib/bench-util.mjs";
import { prepareBulkBatch, waitForBatch } from "./lib/bulk-setup.mjs";
import { scanPdf, vaultSmallDocuments } from "./bench-sweep.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!(value > 0)) throw new Error(`soak: --${name} must be a positive number`);
  return value;
};
const MINUTES = arg("minutes", 10);
/** The whole run's wall-clock bound (start-up, traffic, catch-up, check): past it the soak stops, cleans up and fails. */
const LIMIT_SECONDS = arg("limit-seconds", MINUTES * 60 + 600);
const RATE = Number(process.env.SOAK_RATE) > 0 ? Number(process.env.SOAK_RATE) : 4;
const MAX_REQUESTS = Math.ceil(RATE * MINUTES * 60);
const FAULTS =
  process.env.SOAK_FAULTS ??
  "d1.error=0.01,d1.reset=0.005,d1.write.timeout=0.002,r2.error=0.01,r2.timeout=0.005,do.error=0.005,do.storage.error=0.01,queue.error=0.01,queue.duplicate=0.01,fetch.reset=0.01";
const t0 = Date.now();
const log = (msg) => console.error(`soak: [${Math.round((Date.now() - t0) / 1000)} s] ${msg}`);
/** A paper-path envelope (vault-in-upload takes only these). */
const UPLOAD_ENVELOPE = (name) => ({ envelope_name: name, customer_email: "paper@soak.example", customer_name: "Paper Customer", document_source: "upload", secured_party: { name: "Soak Lender" } });

/**
 * A receiver on 127.0.0.1: ok, slow (1.5 s), failing (503 to its first 3 requests of each event, until its
 * outage ends with the traffic: `r.recovered`) or flapping (500 every other request, never to two tries of
 * one event in a row, so no delivery spends its 6 tries on the parity of other events' requests).
 */
function startReceiver(kind) {
  const r = { kind, requests: 0, ok: new Map(), failedAnswers: 0, recovered: false };
  const lastFailed = new Set();
  const seenTries = new Map();
  r.server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      r.requests += 1;
      let id;
      try {
        id = JSON.parse(Buffer.concat(chunks).toString("utf8")).event_id;
      } catch {
        id = "unparsable";
      }
      const tries = (seenTries.get(id) ?? 0) + 1;
      seenTries.set(id, tries);
      if (kind === "slow") await sleep(1500);
      const fail = (kind === "failing" && tries <= 3 && !r.recovered) || (kind === "flapping" && r.requests % 2 === 1 && !lastFailed.has(id));
      lastFailed.delete(id);
      if (fail) {
        r.failedAnswers += 1;
        lastFailed.add(id);
        return res.writeHead(kind === "failing" ? 503 : 500).end("not now");
      }
      r.ok.set(id, (r.ok.get(id) ?? 0) + 1);
      res.writeHead(200).end("ok");
    });
  });
  return new Promise((resolve) => r.server.listen(0, "127.0.0.1", () => resolve(Object.assign(r, { url: `http://127.0.0.1:${r.server.address().port}/hook` }))));
}

/** A Postmark stand-in on 127.0.0.1 (POSTMARK_API_BASE): counts each email by its outbox id (Metadata.email_id). */
function startMailReceiver() {
  const m = { got: new Map(), slugs: [] };
  m.server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      let id = "unparsable";
      try {
        const message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        id = message.Metadata?.email_id ?? "no email_id";
        // an invitation's signing link: the mix signs through the signer API with it
        const slug = message.Tag === "invitation" && !m.got.has(id) ? /\/s\/([A-Za-z0-9_-]+)/.exec(String(message.TextBody))?.[1] : undefined;
        if (slug) m.slugs.push(slug);
        else if (process.env.SOAK_VERBOSE && message.Tag === "invitation") log(`invitation without a signing link: ${String(message.TextBody).slice(0, 300)}`);
      } catch {
        /* counted as unparsable */
      }
      m.got.set(id, (m.got.get(id) ?? 0) + 1);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ErrorCode: 0, Message: "OK", MessageID: `soak-${id}` }));
    });
  });
  return new Promise((resolve) => m.server.listen(0, "127.0.0.1", () => resolve(Object.assign(m, { base: `http://127.0.0.1:${m.server.address().port}` }))));
}

let restarts = 0;
const figures = { requests: 0, by_status: new Map(), answered_5xx: 0, errors: 0, signed: 0, control: [] };
const broken = new Map();
const breaks = (name, what) => broken.set(name, [...(broken.get(name) ?? []), what]);

/** One request of the mix: counted by status; a 5xx must be in the error shape with X-Request-Id, and never a 500. */
async function hit(base, method, path, { apiKey, token, body, form, idempotent } = {}) {
  figures.requests += 1;
  const headers = {};
  if (apiKey) headers["x-api-key"] = apiKey;
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  if (idempotent) headers["idempotency-key"] = idempotent;
  let res;
  try {
    res = await fetchWithDeadline(`${base}/api/v2${path}`, { method, headers, body: form ?? (body === undefined ? undefined : JSON.stringify(body)) }, 60_000);
  } catch (err) {
    figures.errors += 1;
    breaks("answered", `${method} ${path}: no answer (${err.message.slice(0, 120)})`);
    return null;
  }
  const key = String(res.status);
  figures.by_status.set(key, (figures.by_status.get(key) ?? 0) + 1);
  if (res.status >= 500) {
    figures.answered_5xx += 1;
    let shape = null;
    try {
      shape = JSON.parse(res.text);
    } catch {
      /* not JSON */
    }
    if (res.status === 500) breaks("no_500", `${method} ${path}: ${res.text.slice(0, 160)}`);
    if (/Your worker restarted mid-request/.test(res.text)) {
      restarts += 1; // wrangler dev restarting workerd under load: the local runtime's answer, not the service's
      return res;
    }
    if (!shape || typeof shape.error !== "string" || typeof shape.code !== "string" || !res.headers.get("x-request-id"))
      breaks("error_shape", `${method} ${path} ${res.status}: ${res.text.slice(0, 160)}`);
  }
  return res;
}

/**
 * A request that must eventually go through (set-up, retries of a 503): repeated while it answers 503.
 * `done409`: a 409 after an earlier 503 means that attempt's commit landed and only its answer was lost (a
 * bulk submit whose commit timed out after landing: the retry finds the batch submitted already).
 */
async function until(base, method, path, opts = {}) {
  let failedBefore = false;
  for (let i = 0; i < 20; i++) {
    const res = await hit(base, method, path, opts);
    if (res && res.ok) return JSON.parse(res.text).data;
    if (res && res.status === 409 && opts.done409 && failedBefore) return null;
    if (res && res.status >= 500) failedBefore = true;
    await sleep(200 * (i + 1));
  }
  throw new Error(`${method} ${path} never succeeded`);
}

/** A value the signer API takes for a field (docs/decisions/signer-api.md): a signature typed as text, plain values. */
function valueFor(field) {
  if (field.type === "checkbox") return true;
  if (field.type === "date") return "2026-11-28";
  if (field.type === "number") return 1;
  if (field.options?.length) return field.options[0];
  return "Soak Signer";
}

/** Signs one invitation through the signer API (read, view, submit); a 503 puts the link back for a later turn. */
async function signOnce(base, slugs) {
  const slug = slugs.shift();
  const got = await hit(base, "GET", `/signing/${slug}`);
  if (got?.status === 503) return slugs.push(slug);
  if (got?.status !== 200) return;
  const view = JSON.parse(got.text).data;
  if (process.env.SOAK_VERBOSE) log(`signing ${slug.slice(0, 6)}…: ${view.status}, your turn ${view.is_your_turn}, ${view.fields.length} fields`);
  if (!view.is_your_turn) return;
  if ((await hit(base, "POST", `/signing/${slug}/view`))?.status === 503) return slugs.push(slug);
  const values = Object.fromEntries(view.fields.filter((f) => f.required && !f.readonly).map((f) => [f.name, valueFor(f)]));
  const res = await hit(base, "POST", `/signing/${slug}/submit`, { body: { values } });
  if (res?.status === 503) return slugs.push(slug);
  if (res?.ok) figures.signed += 1;
  else if (process.env.SOAK_VERBOSE) log(`submit answered ${res?.status}: ${res?.text.slice(0, 200)}`);
}

const CONTROL_SCOPES = ["envelopes:read", "envelopes:write", "vault:read", "vault:write", "vault:control"];
/** The records the mix vaulted, and where their control goes (docs/control.md): transfers one by one, and one pool of 3. */
const control = { vaulted: [], pooled: false, toOrgId: null, toKey: null };

/** An answer that must go through unless it already did: repeated on 503 (a 409 then says the first landed). */
async function answer(base, path, apiKey) {
  for (let i = 0; i < 3; i++) {
    const res = await hit(base, "POST", path, { apiKey, body: {} });
    if (res?.status !== 503) return res;
    await sleep(300);
  }
}

/** The first time: a pool of 3 vaulted records offered and accepted; then one record's transfer offered and accepted. */
async function moveControl(base, apiKey, c) {
  if (!c.pooled) {
    c.pooled = true;
    const body = { kind: "assignment", to_org_id: c.toOrgId, vault_ids: c.vaulted.splice(0, 3), reference: "Soak pool" };
    const offer = await hit(base, "POST", "/partner/vault/pools", { apiKey, body });
    if (offer?.ok) figures.control.push(`pool ${(await answer(base, `/partner/vault/pools/${JSON.parse(offer.text).data.pool_id}/accept`, c.toKey))?.status ?? "503 thrice"}`);
    return;
  }
  const offer = await hit(base, "POST", `/partner/vault/${c.vaulted.shift()}/transfers`, { apiKey, body: { kind: "assignment", to_org_id: c.toOrgId } });
  if (offer?.ok) figures.control.push(`transfer ${(await answer(base, `/partner/vault/transfers/${JSON.parse(offer.text).data.transfer_id}/accept`, c.toKey))?.status ?? "503 thrice"}`);
}

const tmp = mkdtempSync(join(tmpdir(), "esign-soak-"));
let server;
const receivers = [];
let mail;
const started = Date.now();
let cleanedUp = false;
/** Closes the receivers, stops the local service (its whole process group) and removes its state; once. */
async function cleanUp() {
  if (cleanedUp) return;
  cleanedUp = true;
  for (const r of receivers) r.server.close();
  mail?.server.close();
  await stopServer(server);
  if (process.env.SOAK_KEEP_STATE) console.error(`soak: the local state is kept in ${tmp} (SOAK_KEEP_STATE)`);
  else rmSync(tmp, { recursive: true, force: true });
}
const stopNow = (why, code) => async () => {
  console.error(`soak: ${why}; stopping the local service`);
  await cleanUp();
  process.exit(code);
};
const limit = setTimeout(stopNow(`FAILED: still running after the ${LIMIT_SECONDS} s limit (--limit-seconds)`, 1), LIMIT_SECONDS * 1000);
process.once("SIGINT", stopNow("interrupted", 130));
process.once("SIGTERM", stopNow("terminated", 143));
try {
  mail = await startMailReceiver();
  const email = { EMAIL_TRANSPORT: "postmark", POSTMARK_SERVER_TOKEN: "soak", EMAIL_FROM: "soak@soak.example", POSTMARK_API_BASE: mail.base };
  const secrets = { ...randomSecrets(), ...email, FAULTS, FAULT_TIMEOUT_MS: "200", DEV_PAGES: "true" };
  log(`starting the local service with FAULTS=${FAULTS}`);
  server = await startFreshServer(join(tmp, "state"), secrets);
  const base = server.base;
  if (process.env.SOAK_SERVER_LOG) {
    // everything wrangler dev prints, for a run to be explained afterwards (the digest keeps only a summary)
    const file = createWriteStream(process.env.SOAK_SERVER_LOG, { flags: "a" });
    for (const stream of [server.child.stdout, server.child.stderr]) stream.on("data", (d) => file.write(d));
  }
  log(`service up at ${base}; setting up the organizations, endpoints and the bulk batch`);
  const dev = async (method, path, body) => {
    const res = await fetchWithDeadline(`${base}${path}`, { method, headers: body ? { "content-type": "application/json" } : {}, body: body ? JSON.stringify(body) : undefined }, 300_000);
    if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    return JSON.parse(res.text).data;
  };
  server.watching = true;
  server.phase = "set-up";

  // set-up with the faults paused: organizations, keys, console sessions and endpoints are not what is soaked
  await dev("POST", "/dev/faults", { paused: true });
  const ctx = { base, operatorToken: secrets.OPERATOR_TOKEN };
  for (const kind of ["ok", "slow", "failing", "flapping"]) receivers.push(await startReceiver(kind));
  const bulk = await prepareBulkBatch(ctx, {
    name: "Soak lender",
    clients: 25,
    beforeItems: async (console_) => {
      for (const r of receivers) r.endpointId = (await console_("POST", "/webhooks/endpoints", { url: r.url, events: ["*"] })).endpoint_id;
    },
  });
  const key = await api(base, "POST", `/operator/orgs/${bulk.org.org_id}/api-keys`, { token: ctx.operatorToken, body: { scopes: CONTROL_SCOPES, rate_limit_rpm: 1_000_000 } });
  const apiKey = key.api_key;
  await vaultSmallDocuments(base, apiKey, UPLOAD_ENVELOPE("Soak seed"), log, 1);
  // the receiving organization of the control transfers and the pool
  const lenderOrg = await api(base, "POST", "/operator/orgs", { token: ctx.operatorToken, body: { name: "Soak Buyer" } });
  const lenderKey = await api(base, "POST", `/operator/orgs/${lenderOrg.org_id}/api-keys`, { token: ctx.operatorToken, body: { scopes: CONTROL_SCOPES, rate_limit_rpm: 1_000_000 } });
  Object.assign(control, { toOrgId: lenderOrg.org_id, toKey: lenderKey.api_key });
  const resumed = await dev("POST", "/dev/faults", { paused: false });
  log(`faults on (${JSON.stringify(resumed.injected)} during set-up); ${RATE} requests/s for ${MINUTES} min, at most ${MAX_REQUESTS} requests`);

  // the mix: creates (half idempotent, retried on 503), reads, lists, vault-ins, one bulk batch submitted a third of the way in
  server.phase = "traffic";
  const envelopes = [];
  const inFlight = new Set();
  const deadline = Date.now() + MINUTES * 60_000;
  let n = 0;
  let bulkSubmitted = false;
  while (Date.now() < deadline && n < MAX_REQUESTS) {
    const tickAt = Date.now() + 1000 / RATE;
    n += 1;
    const which = n % 10;
    const p = (async () => {
      if (!bulkSubmitted && n > MAX_REQUESTS / 3) {
        bulkSubmitted = true;
        await until(base, "POST", `/bulk-send/${bulk.batch.batch_id}/submit`, { token: bulk.admin, done409: true });
      } else if (which <= 2) {
        const idem = n % 2 === 0 ? `soak-${n}` : undefined;
        const body = { envelope_name: `Soak contract ${n}`, customer_email: `c${n}@soak.example`, customer_name: `Customer ${n}` };
        for (let attempt = 0; attempt < 5; attempt++) {
          const res = await hit(base, "POST", "/partner/envelopes", { apiKey, body, idempotent: idem });
          if (res?.status === 201) return envelopes.push(JSON.parse(res.text).data.envelope_id);
          if (!idem || res?.status !== 503) return;
          await sleep(300);
        }
      } else if (which === 3) {
        const res = await hit(base, "POST", "/partner/envelopes", { apiKey, body: UPLOAD_ENVELOPE(`Soak paper ${n}`) });
        if (res?.status !== 201) return;
        const id = JSON.parse(res.text).data.envelope_id;
        const form = new FormData();
        form.append("file", new Blob([await scanPdf(20_000)], { type: "application/pdf" }), "scan.pdf");
        const vaulted = await hit(base, "POST", `/partner/envelopes/${id}/vault-in-upload`, { apiKey, form });
        if (vaulted?.ok) control.vaulted.push(JSON.parse(vaulted.text).data.vault_id);
      } else if (which <= 7 && envelopes.length > 0) {
        await hit(base, "GET", `/partner/envelopes/${envelopes[n % envelopes.length]}/status`, { apiKey });
      } else if (which === 9 && mail.slugs.length > 0) {
        await signOnce(base, mail.slugs);
      } else if (which === 8 && control.vaulted.length >= (control.pooled ? 1 : 3)) {
        await moveControl(base, apiKey, control);
      } else {
        await hit(base, "GET", "/partner/envelopes?limit=20", { apiKey });
      }
    })().catch((err) => breaks("answered", String(err.message).slice(0, 200)));
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
    await sleep(Math.max(0, tickAt - Date.now()));
  }
  await Promise.all(inFlight);
  if (!bulkSubmitted) await until(base, "POST", `/bulk-send/${bulk.batch.batch_id}/submit`, { token: bulk.admin, done409: true });

  // faults off; the crons catch up (the minute job: relay, delivery sweep, bulk resume, expiry)
  server.phase = "catch-up";
  const stats = await dev("POST", "/dev/faults", { paused: true });
  log(`faults paused after ${figures.requests} requests; letting the crons catch up`);
  const batchEnd = await waitForBatch(bulk.console_, bulk.batch.batch_id, 300_000);
  if (batchEnd.batch.status !== "completed") breaks("nothing_stuck", `bulk batch ${bulk.batch.batch_id} ended ${batchEnd.batch.status}`);
  // The failing endpoint's outage ends with the traffic: its breaker (one probe a sweep run after 5 failures
  // in a row) would otherwise hold its backlog for hundreds of runs, since every event's first tries fail.
  for (const r of receivers) r.recovered = true;
  // Each run's clock (`time`, the cron's scheduledTime, which the sweep takes as now) is 9 hours past the
  // previous one: longer than the longest retry delay (8 h), so every retry scheduled by a run is due at the
  // next, as the real minute cron would find it hours later. Progress is any request a receiver got (a
  // failed try too); the catch-up ends after 3 runs in which no receiver got one, or at 60 runs.
  let quiet = 0;
  let lastTotal = -1;
  let rounds = 0;
  const cronRun = async () => {
    // The clock rides in the cron string (src/lib/cron-clock.ts, development only): wrangler's /__scheduled
    // drops `time`, so before the catch-up ran every sweep on the real clock and no retry was ever due
    const clock = Date.now() + (rounds + 1) * 9 * 3_600_000;
    const began = Date.now();
    const ran = await fetchWithDeadline(`${base}/__scheduled?cron=${encodeURIComponent(`* * * * *@${clock}`)}`, {}, 120_000);
    if (process.env.SOAK_VERBOSE) log(`cron run ${rounds + 1} (clock ${new Date(clock).toISOString()}): ${ran.status} in ${Math.round((Date.now() - began) / 1000)} s`);
    if (ran.status !== 200) breaks("caught_up", `sweep run ${rounds + 1} answered ${ran.status}: ${ran.text.slice(0, 160)}`);
  };
  for (; rounds < 60 && quiet < 3; rounds++) {
    await cronRun();
    await sleep(2000);
    const total = receivers.reduce((s, r) => s + r.requests, 0);
    quiet = total === lastTotal ? quiet + 1 : 0;
    lastTotal = total;
    if (process.env.SOAK_VERBOSE) log(`catch-up run ${rounds + 1}: ${receivers.map((r) => `${r.kind} ${r.requests}/${r.ok.size}`).join(", ")}`);
  }
  if (quiet < 3) breaks("caught_up", `the receivers were still getting requests after ${rounds} sweep runs`);

  // the invariant check inside the Worker, then what the receivers counted
  server.phase = "check";
  // The relay's events and the deliveries it queues are the queue consumer's, after the cron run answered: work
  // in flight, not stuck. So a check that finds something broken is taken again after 2 more cron runs and
  // 5 s, at most 3 checks; what the last check finds broken breaks the soak.
  let report;
  for (let check = 1; ; check++) {
    report = await dev("GET", "/dev/invariants");
    if ((report.broken_total === 0 && report.retry_scheduled.length === 0) || check === 3) break;
    log(`check ${check}: ${report.broken_total} broken (${Object.values(report.broken).flat().slice(0, 3).join("; ")}), ${report.retry_scheduled.length} pending; 2 more cron runs, then again`);
    for (let i = 0; i < 2; i++, rounds++) await cronRun();
    await sleep(5000);
  }
  // verbose only: a 503 here (a storage call failing for a moment) must not end the run before its table
  if (process.env.SOAK_VERBOSE)
    for (const e of await bulk.console_("GET", "/webhooks/endpoints").catch((err) => (log(`endpoints not listed: ${String(err.message).slice(0, 160)}`), [])))
      log(`endpoint ${e.url}: ${e.state} failures ${e.consecutive_failures} ${JSON.stringify(e).slice(0, 300)}`);
  for (const [name, list] of Object.entries(report.broken)) for (const what of list) breaks(name, what);
  const everyEvent = new Set(receivers.flatMap((r) => [...r.ok.keys()]));
  // The check reads the real clock; the catch-up ran past every retry delay, so a delivery still pending with a
  // retry "scheduled later" is one no sweep picked up after 3 quiet runs: broken like a lost one, never forgiven.
  const waiting = report.retry_scheduled.length;
  for (const d of report.retry_scheduled.slice(0, 10)) breaks("deliveries_settled", `delivery of ${d.event_id} to ${d.endpoint_id} still pending after the catch-up (next attempt ${d.next_attempt_at})`);
  for (const r of receivers) {
    const missing = [...everyEvent].filter((id) => !r.ok.has(id));
    for (const id of missing.slice(0, 10)) breaks("every_endpoint_reached", `${r.kind} receiver never got ${id}`);
  }
  // every email the outbox marks sent reached the mail receiver, each once
  const mailed = [...mail.got.values()];
  const mailedTwice = [...mail.got].filter(([, n]) => n > 1);
  for (const [id, n] of mailedTwice.slice(0, 10)) breaks("emails_sent_once", `email ${id} reached the mail receiver ${n} times`);
  if (mail.got.size !== (report.checked.emails_sent ?? 0)) breaks("emails_sent_once", `${report.checked.emails_sent ?? 0} emails marked sent, ${mail.got.size} reached the mail receiver`);
  const duplicates = receivers.reduce((s, r) => s + [...r.ok.values()].filter((c) => c > 1).length, 0);
  const checked = { ...report.checked, every_endpoint_reached: everyEvent.size * receivers.length, emails_sent_once: mail.got.size, no_500: figures.requests, error_shape: figures.answered_5xx };

  const load = (await import("node:os")).loadavg().map((x) => x.toFixed(2)).join(" ");
  const rows = [
    ["minutes", MINUTES],
    ["wall clock (start-up, traffic, catch-up, check)", `${Math.round((Date.now() - started) / 1000)} s`],
    ["requests (rate/s)", `${figures.requests} (${RATE})`],
    ["answers by status", [...figures.by_status].sort().map(([s, c]) => `${s}: ${c}`).join(", ")],
    ["5xx answered", figures.answered_5xx],
    ["faults injected", Object.entries(stats.injected).map(([k, v]) => `${k} ${v}`).join(", ") || "none"],
    ["events received (per receiver, once per event id)", `${everyEvent.size} x ${receivers.length}; ${duplicates} receipts repeated (at least once, counted once); ${waiting} still pending after the catch-up`],
    ["signers who signed through the signer API", figures.signed],
    ["control moved (offer accepted: answer status)", Object.entries(figures.control.reduce((m, k) => ({ ...m, [k]: (m[k] ?? 0) + 1 }), {})).map(([k, n]) => `${k}: ${n}`).join(", ") || "none"],
    ["emails (mail receiver)", `${mail.got.size} emails, ${mailed.reduce((a, b) => a + b, 0)} receipts, ${mailedTwice.length} received twice or more`],
    ["catch-up (sweep runs, each 9 h of cron clock past the last)", rounds],
    ["local runtime restarts (workerd, not the service)", restarts],
    ["invariants checked", Object.entries(checked).map(([k, v]) => `${k} ${v}`).join(", ")],
    ["broken", [...broken.values()].reduce((s, l) => s + l.length, 0)],
    ["load average (1/5/15 min)", load],
  ];
  console.log("\n## Soak\n\n| figure | value |\n| --- | --- |");
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
  if (broken.size > 0) {
    console.error("\nsoak: BROKEN invariants:");
    for (const [name, list] of broken) for (const what of list.slice(0, 20)) console.error(`  ${name}: ${what}`);
    const digest = logDigest(server);
    for (const line of digest.filter((l) => /"cron"|scheduled jobs failed/.test(l)).slice(0, 10)) console.error(line);
    for (const line of [...digest.slice(0, 40), ...digest.slice(40).filter((l) => /during (catch-up|check)/.test(l)).slice(0, 40)]) console.error(line);
    process.exitCode = 1;
  }
} catch (err) {
  console.error(`soak: FAILED: ${err.stack ?? err}`);
  for (const [name, list] of broken) for (const what of list.slice(0, 20)) console.error(`  broken before the failure: ${name}: ${what}`);
  const digest = logDigest(server);
  for (const line of [...digest.slice(0, 40), ...digest.slice(40).filter((l) => /during (catch-up|check)/.test(l)).slice(0, 40)]) console.error(line);
  process.exitCode = 1;
} finally {
  clearTimeout(limit);
  await cleanUp();
}
