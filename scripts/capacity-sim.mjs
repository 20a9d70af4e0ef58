#!/usr/bin/env node
// Capacity simulation (docs/scaling.md): replays a synthetic day against the per-lifecycle counts
// measured by `BENCH_ONLY=capacity npm run bench` (scripts/bench-capacity.json) and prints, hour by
// hour, the load on each resource of one account whose envelopes are spread over N shard databases
// (docs/decisions/shards.md) next to the one global database, where and when each saturates, and what
// the day costs. A shard carries 1/N of the day's lifecycles (its statements per lifecycle, its own
// minute cron and integrity sweep, 1/N of what is stored); the global database carries every
// lifecycle's global statements, every keyed POST's idempotency record and the global minute job.
//
//   node scripts/capacity-sim.mjs                      200,000 envelopes, the default curve
//   node scripts/capacity-sim.mjs --shards 4 --envelopes 1000000
//   node scripts/capacity-sim.mjs --envelopes 500000 --bulk-share 0.5 --stored 2000000
//   node scripts/capacity-sim.mjs --json               the whole result as JSON
//   node scripts/capacity-sim.mjs --check              self-check of the model's pure functions
//
// Flags (or env CAPACITY_SIM_<FLAG_IN_CAPS>, e.g. CAPACITY_SIM_ENVELOPES):
//   --measured <file>      measured counts (default scripts/bench-capacity.json)
//   --shards <n>           shard databases the day is spread over, evenly (default: the shards the
//                          measurement bound, `layout.shards` in the JSON; 1 for an older measurement)
//   --keyed-posts <n>      partner POSTs per interactive envelope sent with an Idempotency-Key, each
//                          adding the measured idempotency record's work on the global database
//                          (default 1: the create)
//   --orgs <n>             organizations in the global database, for its size (default 10000)
//   --envelopes <n>        envelopes created and sent in the day (default 200000)
//   --bulk-share <0..1>    share of them sent by bulk send, in bursts (default 0.3)
//   --bursts <h,h,...>     hours (tenant time) at which a bulk burst starts (default 9,14)
//   --burst-minutes <n>    minutes a burst takes to create and send its share (default 15)
//   --sign-delay-h <h>     mean delay from send to the signer completing (exponential; default 3)
//   --stored <n>           envelopes already stored at the start of the day, over all shards (default 200000: one such day)
//   --partner-reads <n>    extra partner API reads per envelope (status polls; default 0: webhooks instead)
//   --d1-busy-limit <0..1> share of a database's single writer's time usable before queueing dominates (default 0.7)
//   --d1-ms-per-statement <ms>  the single writer's time per statement (default 0.25; D1 docs: "1 ms
//                          average query -> ~1,000 queries/s"; production meta.duration of indexed
//                          statements is typically 0.1-0.5 ms). An estimate, not a local measurement.
//   --scan-us-per-row <us> the time per extra row a growing (scanning) statement reads (default 0.05;
//                          Cloudflare's D1 FAQ shows a 5,000-row scan in ~0.2 ms)
//   --fixed-scans          model the statements whose reads grow with the database as fixed (indexed)
//   --growth-from <file>   take the rows read per envelope stored (the fitted slopes, lifecycle and
//                          cron) from another measurement, e.g. one taken with BENCH_CAPACITY_STORED=5000
//   --charge-fit           charge the lifecycle's own fitted slope even when it was taken with fewer
//                          than 1,000 envelopes stored. By default such a fit is not charged (the cron
//                          tick's growth always is): over a
//                          fresh database it measures the first rows' index successors, a bounded step,
//                          not a scan (docs/scaling.md section 2); the stored run answers the question
//   --queue-limit <msg/s>  messages per second one queue takes (default 5000)
//   --do-limit <req/s>     requests per second one Durable Object takes (default 1000)
//   --db-limit-gb <GB>     D1 database size limit (default 10)
//   --db-start-gb <GB>     each shard's size at the start of the day (default: its share of --stored x bytes per envelope)
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const MINUTES = 1440;
/** A fitted growth slope from a measurement with fewer envelopes stored than this is not charged (--charge-fit). */
export const UNCHARGED_FIT_BELOW = 1000;

/**
 * Cloudflare list prices, USD, as published in 2025 (Workers Paid plan, Standard usage model). An
 * assumption to check against the current pricing pages before quoting: prices and included
 * allowances change. Included monthly allowances are listed separately and NOT subtracted from the
 * marginal cost per 1,000 envelopes.
 */
export const PRICES = {
  as_of: "2025 list prices (Workers Paid, Standard usage model); check developers.cloudflare.com/*/platform/pricing before quoting",
  workers_requests_per_million: 0.3,
  workers_cpu_ms_per_million: 0.02,
  d1_rows_read_per_million: 0.001,
  d1_rows_written_per_million: 1.0,
  d1_storage_gb_month: 0.75,
  r2_class_a_per_million: 4.5,
  r2_class_b_per_million: 0.36,
  r2_storage_gb_month: 0.015,
  queues_operations_per_million: 0.4, // a message is 3 operations (write, read, delete) per 64 KB
  do_requests_per_million: 0.15,
  do_duration_gb_s_per_million: 12.5,
  do_sqlite_rows_written_per_million: 1.0,
  do_sqlite_rows_read_per_million: 0.001,
  included_monthly: {
    plan_fee_usd: 5,
    workers_requests: 10e6,
    workers_cpu_ms: 30e6,
    d1_rows_read: 25e9,
    d1_rows_written: 50e6,
    d1_storage_gb: 5,
    r2_class_a: 1e6,
    r2_class_b: 10e6,
    r2_storage_gb: 10,
    queues_operations: 1e6,
    do_requests: 1e6,
    do_duration_gb_s: 400e3,
  },
};

/** Platform limits used as capacities (published limits; assumptions to check, like the prices). */
export const LIMITS = {
  d1_database_gb: 10,
  queue_messages_per_s: 5000,
  do_requests_per_s: 1000,
};

// --- pure model -------------------------------------------------------------------------------------

/**
 * Share of the day's interactive (non-bulk) sends in each minute: a business-day curve (tenant time),
 * a floor at night, a morning peak near 10:30 and an afternoon one near 15:00. Sums to 1.
 */
export function diurnalWeights() {
  const w = [];
  for (let m = 0; m < MINUTES; m++) {
    const h = m / 60;
    const bump = (mu, sigma, a) => a * Math.exp(-0.5 * ((h - mu) / sigma) ** 2);
    w.push(0.04 + bump(10.5, 1.6, 1) + bump(15, 2, 0.9) + bump(19.5, 1.5, 0.25));
  }
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / total);
}

/** Sends per minute: the interactive share on the diurnal curve plus the bulk share in bursts. */
export function sendsPerMinute({ envelopes, bulkShare, bursts, burstMinutes }) {
  const weights = diurnalWeights();
  const sends = weights.map((w) => w * envelopes * (1 - bulkShare));
  const bulk = new Array(MINUTES).fill(0);
  const perBurst = bursts.length > 0 ? (envelopes * bulkShare) / bursts.length : 0;
  for (const hour of bursts) {
    const start = Math.round(hour * 60);
    for (let i = 0; i < burstMinutes; i++) bulk[(start + i) % MINUTES] += perBurst / burstMinutes;
  }
  return { interactive: sends, bulk, total: sends.map((s, i) => s + bulk[i]) };
}

/**
 * Completions per minute: each send completes after an exponential delay (mean `meanHours`), the
 * tail wrapping into the next day (a steady state where every day looks alike). Conserves the total.
 */
export function completionsPerMinute(sends, meanHours) {
  const out = new Array(MINUTES).fill(0);
  const meanMin = Math.max(1, meanHours * 60);
  const kernel = [];
  let mass = 0;
  for (let d = 0; d < MINUTES * 3; d++) {
    const p = Math.exp(-d / meanMin) - Math.exp(-(d + 1) / meanMin);
    kernel.push(p);
    mass += p;
  }
  for (let m = 0; m < MINUTES; m++) {
    if (sends[m] === 0) continue;
    for (let d = 0; d < kernel.length; d++) out[(m + d) % MINUTES] += (sends[m] * kernel[d]) / mass;
  }
  return out;
}

const RESOURCE_KEYS = [
  "worker_requests",
  "cpu_ms",
  "d1_statements",
  "d1_rows_read",
  "d1_rows_written",
  "r2_class_a",
  "r2_class_b",
  "r2_bytes_written",
  "queue_messages",
  "do_requests",
  // the D1 part split by database: all shards together, and the global database
  "shard_statements",
  "shard_rows_read",
  "shard_rows_written",
  "global_statements",
  "global_rows_read",
  "global_rows_written",
];

/**
 * A measured step's (or periodic job's) value of `k`. The split keys come from its `by_database`; a
 * measurement without it (one database, taken before the harness counted each database) is all shard.
 */
function valueOf(s, k) {
  if (k === "queue_messages") return s.queue_messages_sent ?? 0;
  const m = /^(shard|global)_(statements|rows_read|rows_written)$/.exec(k);
  if (!m) return s[k] ?? 0;
  if (!s.by_database) return m[1] === "shard" ? (s[`d1_${m[2]}`] ?? 0) : 0;
  return s.by_database[m[1] === "shard" ? "shards" : "global"]?.[m[2]] ?? 0;
}

/**
 * The measured lifecycle split by when it happens: `atSend` (create, send) and `atCompletion`
 * (view, sign + complete, vault), each carrying its share of the queue consumer's work (in
 * proportion to the messages it put on the queue; the deliveries follow the completion). `growth`:
 * the extra D1 rows a step reads per envelope already stored (a statement that scans).
 */
export function phasesOf(measured) {
  const zero = () => Object.fromEntries(RESOURCE_KEYS.map((k) => [k, 0]));
  const phases = { atSend: zero(), atCompletion: zero(), growthAtSend: 0, growthAtCompletion: 0, partnerRequestsAtSend: 0, partnerRequestsAtCompletion: 0 };
  const steps = measured.steps.filter((s) => !/^bare/.test(s.name));
  const consumer = steps.find((s) => /^webhooks/.test(s.name));
  const producers = steps.filter((s) => s !== consumer);
  const sentByProducers = producers.reduce((a, s) => a + s.queue_messages_sent, 0);
  const add = (into, s, share = 1) => {
    for (const k of RESOURCE_KEYS) into[k] += valueOf(s, k) * share;
  };
  for (const s of producers) {
    const atSend = /^(create|send)/.test(s.name);
    const into = atSend ? phases.atSend : phases.atCompletion;
    add(into, s);
    if (atSend) phases.growthAtSend += s.d1_rows_read_growth_per_stored_envelope ?? 0;
    else phases.growthAtCompletion += s.d1_rows_read_growth_per_stored_envelope ?? 0;
    // partner API calls (create, send, vault) each pass the key's RateLimiter Durable Object
    if (/^(create|send|vault)/.test(s.name)) {
      if (atSend) phases.partnerRequestsAtSend += s.worker_requests;
      else phases.partnerRequestsAtCompletion += s.worker_requests;
    }
  }
  if (consumer) {
    const sendShare = sentByProducers > 0 ? producers.filter((s) => /^(create|send)/.test(s.name)).reduce((a, s) => a + s.queue_messages_sent, 0) / sentByProducers : 0;
    add(phases.atSend, consumer, sendShare);
    add(phases.atCompletion, consumer, 1 - sendShare);
    phases.growthAtCompletion += consumer.d1_rows_read_growth_per_stored_envelope ?? 0;
  }
  // A phase whose fitted growth is negative read a row less here and there from run to run (noise): reads do
  // not shrink as the tables fill, so it is charged as no growth, never as a saving.
  phases.growthAtSend = Math.max(0, phases.growthAtSend);
  phases.growthAtCompletion = Math.max(0, phases.growthAtCompletion);
  return phases;
}

/**
 * The minute cron's D1 work split as it runs with `shards` shards: every shard runs the per-shard jobs
 * (the measured tick ran them on `shards_ticked` shards), the global jobs run once.
 */
export function cronParts(cron) {
  if (!cron) return null;
  const ticked = Math.max(1, cron.shards_ticked ?? 1);
  const part = (p) => Object.fromEntries(["statements", "rows_read", "rows_written"].map((k) => [k, valueOf(cron, `${p}_${k}`)]));
  const shards = part("shard");
  return {
    perShard: Object.fromEntries(Object.entries(shards).map(([k, v]) => [k, v / ticked])),
    global: part("global"),
    ticked,
  };
}

/** Resource use of one minute, over `shards` shards and the global database. */
export function minuteLoad({ phases, sends, bulkSends, completions, stored, cron, sweepDocs, sweep, partnerReads, scanMsPerRow, msPerStatement, fixedScans, shards = 1, keyedPosts = 0, keyed = null, keyedOnShard = false }) {
  const n = Math.max(1, shards);
  const load = {};
  for (const k of RESOURCE_KEYS) load[k] = phases.atSend[k] * sends + phases.atCompletion[k] * completions;
  // growing statements: extra rows (and SQLite time) in proportion to what is stored on the lifecycle's
  // own shard (1/n of it): a lifecycle reads its shard's tables only
  let extraRows = fixedScans ? 0 : (phases.growthAtSend * sends + phases.growthAtCompletion * completions) * (stored / n);
  // Bulk sends do not pass the partner key's RateLimiter (the batch's own Durable Object drives them):
  // the Durable Object requests measured at send time (the limiter's) count for interactive sends only.
  const interactive = sends - bulkSends;
  load.do_requests = phases.atSend.do_requests * interactive + phases.atCompletion.do_requests * completions + partnerReads * interactive;
  load.limiter_requests = load.do_requests;
  load.worker_requests += partnerReads * interactive;
  // keyed partner POSTs: the idempotency record's claim and completion on the global database
  if (keyed && keyedPosts > 0) {
    const posts = keyedPosts * interactive;
    for (const [k, v] of Object.entries({ statements: keyed.statements, rows_read: keyed.rows_read, rows_written: keyed.rows_written })) {
      load[`d1_${k}`] += posts * (v ?? 0);
      load[`${keyedOnShard ? "shard" : "global"}_${k}`] += posts * (v ?? 0);
    }
  }
  let cronShardStatements = 0;
  if (cron) {
    for (const k of RESOURCE_KEYS) if (!/^(d1|shard|global)_/.test(k)) load[k] += valueOf(cron, k);
    const parts = cronParts(cron);
    cronShardStatements = parts.perShard.statements;
    for (const k of ["statements", "rows_read", "rows_written"]) {
      load[`shard_${k}`] += parts.perShard[k] * n;
      load[`global_${k}`] += parts.global[k];
      load[`d1_${k}`] += parts.perShard[k] * n + parts.global[k];
    }
    if (!fixedScans) extraRows += Math.max(0, cron.d1_rows_read_growth_per_stored_envelope ?? 0) * stored;
  }
  // the integrity sweep: `sweepDocs` documents a minute on each shard
  if (sweep && sweepDocs > 0)
    for (const k of RESOURCE_KEYS) {
      const v = /^shard_/.test(k) ? valueOf(sweep, k.replace(/^shard_/, "d1_")) : /^global_/.test(k) ? 0 : valueOf(sweep, k);
      load[k] += v * sweepDocs * n;
    }
  load.d1_rows_read += extraRows;
  load.shard_rows_read += extraRows;
  // Each database's single writer: a fixed cost per statement plus the rows a growing statement scans.
  // A shard carries 1/n of the lifecycles and its own cron and sweep; the global one every lifecycle's
  // global statements, the keyed POSTs' and the global minute job.
  load.shard_busy_ms = ((load.shard_statements - cronShardStatements * n) / n + cronShardStatements) * msPerStatement + (extraRows / n) * scanMsPerRow;
  load.global_busy_ms = load.global_statements * msPerStatement;
  load.d1_busy_ms = load.shard_busy_ms;
  return load;
}

/** Cost in USD of a usage record (marginal: no included allowance subtracted). */
export function costOf(usage, prices = PRICES) {
  const m = 1e6;
  const lines = {
    workers_requests: (usage.worker_requests / m) * prices.workers_requests_per_million,
    workers_cpu: (usage.cpu_ms / m) * prices.workers_cpu_ms_per_million,
    d1_rows_read: (usage.d1_rows_read / m) * prices.d1_rows_read_per_million,
    d1_rows_written: (usage.d1_rows_written / m) * prices.d1_rows_written_per_million,
    r2_class_a: (usage.r2_class_a / m) * prices.r2_class_a_per_million,
    r2_class_b: (usage.r2_class_b / m) * prices.r2_class_b_per_million,
    queues: ((usage.queue_messages * 3) / m) * prices.queues_operations_per_million,
    do_requests: (usage.do_requests / m) * prices.do_requests_per_million,
  };
  const total = Object.values(lines).reduce((a, b) => a + b, 0);
  return { lines, total };
}

/** Monthly storage cost added by `envelopes` envelopes kept a month (D1 and R2 bytes each). */
export function storageCostPerMonth(envelopes, d1BytesEach, r2BytesEach, prices = PRICES) {
  const gb = 1024 ** 3;
  return {
    d1: ((envelopes * d1BytesEach) / gb) * prices.d1_storage_gb_month,
    r2: ((envelopes * r2BytesEach) / gb) * prices.r2_storage_gb_month,
  };
}

/**
 * A measurement taken on the one-database layout (no SHARD_1 bound: every statement counted as
 * `global`, which was also shard 1) read as all shard work, as before sharding: its `by_database` is dropped.
 */
export function normalized(measured) {
  if (!measured.layout || measured.layout.separate_databases) return measured;
  const strip = (s) => {
    if (!s || typeof s !== "object") return s;
    const { by_database: _, ...rest } = s;
    return rest;
  };
  return {
    ...measured,
    steps: measured.steps.map(strip),
    periodic: Object.fromEntries(Object.entries(measured.periodic ?? {}).map(([k, v]) => [k, strip(v)])),
    global_per_keyed_post: measured.global_per_keyed_post ? { ...measured.global_per_keyed_post, one_database: true } : undefined,
  };
}

/** Runs the day; returns per-minute and per-hour loads, saturations and the day's usage. */
export function simulateDay(measuredAsTaken, opts) {
  const measured = normalized(measuredAsTaken);
  const shards = Math.max(1, Math.round(opts.shards ?? 1));
  const phases = phasesOf(measured);
  let cronGrowth = null;
  // the rows read per envelope stored: another measurement's (--growth-from), or none (an uncharged fit)
  if (opts.growthFrom) {
    const from = phasesOf(normalized(opts.growthFrom));
    phases.growthAtSend = from.growthAtSend;
    phases.growthAtCompletion = from.growthAtCompletion;
    cronGrowth = Object.entries(opts.growthFrom.periodic ?? {}).find(([k, v]) => /^cron tick/.test(k) && !v.error)?.[1]?.d1_rows_read_growth_per_stored_envelope ?? 0;
  } else if (opts.uncharged) {
    // the lifecycle's fit only: the cron tick's growth is the difference of two ticks (after the warm-up
    // and after the runs) of a statement that scans, or 0
    phases.growthAtSend = 0;
    phases.growthAtCompletion = 0;
  }
  const { interactive, bulk, total } = sendsPerMinute(opts);
  const completions = completionsPerMinute(total, opts.signDelayHours);
  const measuredCron = Object.entries(measured.periodic ?? {}).find(([k, v]) => /^cron tick/.test(k) && !v.error)?.[1] ?? null;
  const cron = measuredCron && cronGrowth !== null ? { ...measuredCron, d1_rows_read_growth_per_stored_envelope: cronGrowth } : measuredCron;
  const sweep = Object.entries(measured.periodic ?? {}).find(([k, v]) => /^integrity sweep/.test(k) && !v.error)?.[1] ?? null;
  const sweepPerMinute = measured.integrity_sweep_limits?.max_documents_per_run ?? 25;
  const d1Bytes = measured.d1_file_bytes_per_envelope;
  const globalBytesPerEnvelope = Math.max(0, measured.databases?.global && measured.layout?.separate_databases ? measured.databases.global.file_bytes_per_envelope ?? 0 : 0);
  const checkBytes = Object.values(measured.d1_stored_per_integrity_check ?? {}).reduce((a, t) => a + t.bytes, 0) || 300;
  // a keyed POST's extra statements land on the global database (in a one-database measurement, on the one database)
  const keyedOneDb = !!measured.global_per_keyed_post?.one_database;
  const keyed = measured.global_per_keyed_post?.global_extra ?? null;
  // The weekly sweep re-hashes each shard's vault: its demand per minute, capped by the batch size per run.
  const vaultAtStart = opts.stored;
  const sweepDemandPerMinute = vaultAtStart / shards / (7 * MINUTES);
  const sweepDocs = Math.min(sweepPerMinute, sweepDemandPerMinute);
  const minutes = [];
  let stored = opts.stored;
  for (let m = 0; m < MINUTES; m++) {
    const load = minuteLoad({
      phases,
      sends: total[m],
      bulkSends: bulk[m],
      completions: completions[m],
      stored,
      cron,
      sweepDocs,
      sweep,
      partnerReads: opts.partnerReads,
      scanMsPerRow: opts.scanUsPerRow / 1000,
      msPerStatement: opts.d1MsPerStatement,
      fixedScans: opts.fixedScans,
      shards,
      keyedPosts: opts.keyedPosts ?? 0,
      keyed,
      keyedOnShard: keyedOneDb,
    });
    stored += total[m];
    minutes.push({ minute: m, sends: total[m], interactive: interactive[m], bulk: bulk[m], completions: completions[m], ...load });
  }
  const busyLimitMsPerMinute = opts.d1BusyLimit * 60_000;
  const hours = [];
  for (let h = 0; h < 24; h++) {
    const slice = minutes.slice(h * 60, h * 60 + 60);
    const sum = (k) => slice.reduce((a, x) => a + x[k], 0);
    const peak = (k) => Math.max(...slice.map((x) => x[k]));
    const row = {
      hour: h,
      sends: sum("sends"),
      completions: sum("completions"),
      worker_rps: sum("worker_requests") / 3600,
      cpu_s: sum("cpu_ms") / 1000,
      d1_statements_per_s_peak: peak("d1_statements") / 60,
      d1_rows_written_per_s_peak: peak("d1_rows_written") / 60,
      d1_rows_read_per_s_peak: peak("d1_rows_read") / 60,
      // per shard (each carries 1/N) and on the global database
      shard_statements_per_s_peak: peak("shard_statements") / shards / 60,
      global_statements_per_s_peak: peak("global_statements") / 60,
      global_rows_written_per_s_peak: peak("global_rows_written") / 60,
      d1_busy_peak: peak("shard_busy_ms") / 60_000,
      shard_busy_peak: peak("shard_busy_ms") / 60_000,
      global_busy_peak: peak("global_busy_ms") / 60_000,
      queue_msgs_per_s_peak: peak("queue_messages") / 60,
      limiter_rps_peak: peak("limiter_requests") / 60,
    };
    row.saturated = [
      row.shard_busy_peak > opts.d1BusyLimit ? "D1 shard writer" : null,
      row.global_busy_peak > opts.d1BusyLimit ? "D1 global writer" : null,
      row.queue_msgs_per_s_peak > opts.queueLimit ? "queue" : null,
      row.limiter_rps_peak > opts.doLimit ? "key's Durable Object" : null,
    ].filter(Boolean);
    hours.push(row);
  }
  const usage = Object.fromEntries(RESOURCE_KEYS.map((k) => [k, minutes.reduce((a, x) => a + x[k], 0)]));
  const firstSaturation = minutes.find(
    (x) => x.shard_busy_ms > busyLimitMsPerMinute || x.global_busy_ms > busyLimitMsPerMinute || x.queue_messages / 60 > opts.queueLimit || x.limiter_requests / 60 > opts.doLimit,
  );
  const shardStartBytes = opts.dbStartGb !== undefined ? opts.dbStartGb * 1024 ** 3 : (opts.stored / shards) * d1Bytes;
  const shardGrowthPerDay = (opts.envelopes / shards) * d1Bytes + sweepDocs * MINUTES * checkBytes;
  // the global database: per organization (measured logical bytes of org + key + user), the rolling day
  // of idempotency records (one per keyed POST, deleted after 24 h), and whatever it took per envelope
  const perOrgBytes = measured.global_per_organization?.bytes ?? 0;
  const keyedStored = measured.global_per_keyed_post?.global_stored;
  const keyedRecordBytes = keyedStored?.tables?.idempotency_keys?.bytes ?? keyedStored?.bytes ?? 0;
  const keyedPerDay = (opts.keyedPosts ?? 0) * interactive.reduce((a, b) => a + b, 0);
  const globalSteadyBytes = (opts.orgs ?? 0) * perOrgBytes + keyedPerDay * keyedRecordBytes;
  const globalGrowthPerDay = opts.envelopes * globalBytesPerEnvelope;
  return {
    phases,
    shards,
    minutes,
    hours,
    usage,
    firstSaturation: firstSaturation
      ? { minute: firstSaturation.minute, d1_busy: firstSaturation.shard_busy_ms / 60_000, shard_busy: firstSaturation.shard_busy_ms / 60_000, global_busy: firstSaturation.global_busy_ms / 60_000 }
      : null,
    sweep: {
      vault_documents: vaultAtStart,
      vault_documents_per_shard: vaultAtStart / shards,
      weekly_capacity: sweepPerMinute * MINUTES * 7 * shards,
      weekly_capacity_per_shard: sweepPerMinute * MINUTES * 7,
      keeps_up: sweepDemandPerMinute <= sweepPerMinute,
    },
    storage: {
      d1_bytes_per_envelope: d1Bytes,
      d1_start_gb: shardStartBytes / 1024 ** 3,
      d1_growth_gb_per_day: shardGrowthPerDay / 1024 ** 3,
      days_to_limit: Math.max(0, (opts.dbLimitGb * 1024 ** 3 - shardStartBytes) / shardGrowthPerDay),
      r2_bytes_per_envelope: measured.lifecycle.r2_bytes_written,
      global: {
        bytes_per_envelope: globalBytesPerEnvelope,
        bytes_per_organization: perOrgBytes,
        idempotency_record_bytes: keyedRecordBytes,
        keyed_posts_per_day: keyedPerDay,
        steady_mb: globalSteadyBytes / 1024 ** 2,
        growth_mb_per_day: globalGrowthPerDay / 1024 ** 2,
      },
    },
    cost: costOf(usage),
  };
}

/**
 * The most envelopes a day this layout carries under this curve before a peak minute passes the busy
 * limit: of any shard or of the global database (`bound` "both"), of a shard only ("shard"), or of the
 * global database only ("global", which does not depend on the number of shards).
 */
export function maxEnvelopesPerDay(measured, opts, bound = "both") {
  let lo = 0;
  let hi = 1_000;
  const ok = (n) => {
    const day = simulateDay(measured, { ...opts, envelopes: n });
    const shard = Math.max(...day.hours.map((h) => h.shard_busy_peak));
    const global = Math.max(...day.hours.map((h) => h.global_busy_peak));
    return (bound === "global" || shard <= opts.d1BusyLimit) && (bound === "shard" || global <= opts.d1BusyLimit);
  };
  if (!ok(hi)) return 0;
  while (ok(hi) && hi < 1e10) [lo, hi] = [hi, hi * 2];
  if (hi >= 1e10) return Infinity;
  while (hi - lo > Math.max(100, lo * 0.005)) {
    const mid = Math.round((lo + hi) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

// --- command line -------------------------------------------------------------------------------------

function parseArgs(argv) {
  const flags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) throw new Error(`unexpected argument ${a}`);
    const [name, inline] = a.slice(2).split("=", 2);
    if (["json", "check", "help", "fixed-scans", "charge-fit"].includes(name)) flags[name] = true;
    else flags[name] = inline ?? argv[++i];
  }
  const get = (name, fallback) => flags[name] ?? process.env[`CAPACITY_SIM_${name.toUpperCase().replaceAll("-", "_")}`] ?? fallback;
  const num = (name, fallback) => {
    const v = Number(get(name, fallback));
    if (!Number.isFinite(v) || v < 0) throw new Error(`--${name} must be a non-negative number`);
    return v;
  };
  return {
    json: !!flags.json,
    fixedScans: !!flags["fixed-scans"],
    chargeFit: !!flags["charge-fit"],
    growthFromPath: get("growth-from", undefined),
    check: !!flags.check,
    help: !!flags.help,
    measured: get("measured", join(here, "bench-capacity.json")),
    // undefined: the measurement's own number of shards (resolved once the file is read)
    shards: get("shards", undefined) === undefined ? undefined : Math.max(1, Math.round(num("shards", 1))),
    keyedPosts: num("keyed-posts", 1),
    orgs: num("orgs", 10_000),
    envelopes: num("envelopes", 200_000),
    bulkShare: Math.min(1, num("bulk-share", 0.3)),
    bursts: String(get("bursts", "9,14")).split(",").filter(Boolean).map(Number),
    burstMinutes: Math.max(1, Math.round(num("burst-minutes", 15))),
    signDelayHours: num("sign-delay-h", 3),
    stored: num("stored", 200_000),
    partnerReads: num("partner-reads", 0),
    d1BusyLimit: num("d1-busy-limit", 0.7),
    scanUsPerRow: num("scan-us-per-row", 0.05),
    d1MsPerStatement: num("d1-ms-per-statement", 0.25),
    queueLimit: num("queue-limit", LIMITS.queue_messages_per_s),
    doLimit: num("do-limit", LIMITS.do_requests_per_s),
    dbLimitGb: num("db-limit-gb", LIMITS.d1_database_gb),
    dbStartGb: get("db-start-gb", undefined) === undefined ? undefined : num("db-start-gb", 0),
  };
}

const f = (n, d = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }) : "-");
const pct = (x) => `${f(100 * x, 0)}%`;

function printTable(columns, rows) {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === cells.length - 1 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  ").trimEnd();
  console.log(line(columns));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(line(r));
}

export function report(measured, opts) {
  const day = simulateDay(measured, opts);
  return {
    opts: { ...opts, measured: undefined, growthFrom: undefined },
    measured_at: measured.measured_at,
    layout: measured.layout ?? null,
    growth_basis: opts.growthFrom ? `from ${opts.growthFromPath}` : opts.uncharged ? "not charged (a fit over a fresh database)" : "this measurement's fit",
    day: { ...day, minutes: undefined },
    // the layout of --shards shards: the first of a shard's or the global database's limit
    max_envelopes_per_day: maxEnvelopesPerDay(measured, opts),
    max_envelopes_per_day_empty: maxEnvelopesPerDay(measured, { ...opts, stored: 0 }),
    max_envelopes_per_day_scans_fixed: maxEnvelopesPerDay(measured, { ...opts, fixedScans: true }),
    // one shard alone, like one database before sharding but with the shard's statements only
    max_envelopes_per_day_one_shard: maxEnvelopesPerDay(measured, { ...opts, shards: 1 }, "shard"),
    // the global database alone: it takes every lifecycle's global statements, whatever the shards
    max_envelopes_per_day_global: maxEnvelopesPerDay(measured, opts, "global"),
  };
}

function print(measured, opts) {
  const r = report(measured, opts);
  const { day } = r;
  const n = day.shards;
  console.log(
    `Synthetic day: ${f(opts.envelopes)} envelopes (${pct(opts.bulkShare)} by bulk send in ${opts.bursts.length} burst(s) of ${opts.burstMinutes} min at ${opts.bursts.map((h) => `${h}:00`).join(", ")}), ` +
      `signer delay mean ${opts.signDelayHours} h, ${f(opts.stored)} envelopes already stored, spread evenly over ${n} shard${n === 1 ? "" : "s"} beside the global database; ` +
      `${opts.keyedPosts} keyed POST(s) per interactive envelope; counts measured ${measured.measured_at} (${measured.runs} lifecycles${measured.layout ? `, ${measured.layout.separate_databases ? `global + ${measured.layout.shards} shard databases` : "one database"}` : ", one database"}).`,
  );
  console.log(
    `Capacities: each D1 database's single writer usable to ${pct(opts.d1BusyLimit)} busy at ${opts.d1MsPerStatement} ms per statement + ${opts.scanUsPerRow} us per scanned row${opts.fixedScans ? " (growing scans modelled as fixed)" : ""}, queue ${f(opts.queueLimit)} msg/s, one Durable Object ${f(opts.doLimit)} req/s, D1 ${opts.dbLimitGb} GB.`,
  );
  const lc = phasesPerLifecycle(day.phases);
  const fit = (measured.steps ?? []).filter((s) => !/^bare/.test(s.name)).reduce((a, s) => a + (s.d1_rows_read_growth_per_stored_envelope ?? 0), 0);
  console.log(
    opts.growthFrom
      ? `Rows read per envelope stored: from ${opts.growthFromPath} (${f(opts.growthFrom.envelopes_stored_before_runs ?? 0)} stored): ${f(day.phases.growthAtSend + day.phases.growthAtCompletion, 3)} per lifecycle (a negative fit charged as none).`
      : opts.uncharged
        ? `Rows read per envelope stored by the lifecycle: not charged (the cron tick's are). This measurement's ${measured.runs}-run fit (${f(fit, 3)}) was taken over ${f(measured.envelopes_stored_before_runs)} stored envelopes, where it measures the first rows of a fresh database (docs/scaling.md section 2); --growth-from <a BENCH_CAPACITY_STORED run> charges a stored run's slope, --charge-fit this one.`
        : `Rows read per envelope stored: the measurement's fit, ${f(day.phases.growthAtSend + day.phases.growthAtCompletion, 3)} per lifecycle (a negative fit charged as none).`,
  );
  console.log(
    `Per lifecycle: ${f(lc.shard_statements, 1)} statements on its shard, ${f(lc.global_statements, 1)} on the global database (+${f(measured.global_per_keyed_post?.global_extra?.statements ?? 0, 1)} per keyed POST).\n`,
  );
  printTable(
    ["hour", "sent", "completed", "Worker req/s", "CPU s", "shard stmt/s peak", "shard busy peak", "global stmt/s peak", "global writes/s peak", "global busy peak", "queue msg/s peak", "key DO req/s peak", "saturated"],
    day.hours.map((h) => [
      `${String(h.hour).padStart(2, "0")}:00`,
      f(h.sends),
      f(h.completions),
      f(h.worker_rps, 1),
      f(h.cpu_s, 0),
      f(h.shard_statements_per_s_peak, 0),
      pct(h.shard_busy_peak),
      f(h.global_statements_per_s_peak, 0),
      f(h.global_rows_written_per_s_peak, 0),
      pct(h.global_busy_peak),
      f(h.queue_msgs_per_s_peak, 1),
      f(h.limiter_rps_peak, 1),
      h.saturated.join(", ") || "-",
    ]),
  );
  const peakShard = day.hours.reduce((a, h) => (h.shard_busy_peak > a.shard_busy_peak ? h : a));
  const peakGlobal = day.hours.reduce((a, h) => (h.global_busy_peak > a.global_busy_peak ? h : a));
  console.log(
    `\nPeak: each shard's writer ${pct(peakShard.shard_busy_peak)} busy at ${String(peakShard.hour).padStart(2, "0")}:00, the global writer ${pct(peakGlobal.global_busy_peak)} at ${String(peakGlobal.hour).padStart(2, "0")}:00 (the limit is ${pct(opts.d1BusyLimit)}).`,
  );
  console.log(
    day.firstSaturation
      ? `First saturation: minute ${day.firstSaturation.minute} (${String(Math.floor(day.firstSaturation.minute / 60)).padStart(2, "0")}:${String(day.firstSaturation.minute % 60).padStart(2, "0")}), shard writer ${pct(day.firstSaturation.shard_busy)}, global writer ${pct(day.firstSaturation.global_busy)} busy.`
      : "No resource saturates in this day.",
  );
  console.log(
    `Where each stops on this curve: one shard carries ~${f(r.max_envelopes_per_day_one_shard)} envelopes/day (its own writer; ${f(opts.stored)} stored); ` +
      (Number.isFinite(r.max_envelopes_per_day_global)
        ? `the global database ~${f(r.max_envelopes_per_day_global)} envelopes/day (every lifecycle's global statements and keyed POSTs, whatever the shards); `
        : "the global database no bound (a one-database measurement counts no global statement); ") +
      `${n} shard${n === 1 ? "" : "s"} and the global database together ~${f(r.max_envelopes_per_day)} (${f(r.max_envelopes_per_day_empty)} with nothing stored; ${f(r.max_envelopes_per_day_scans_fixed)} if the growing scans were indexed).`,
  );
  console.log(
    `Integrity sweep: ${f(day.sweep.vault_documents_per_shard)} vaulted documents per shard against ${f(day.sweep.weekly_capacity_per_shard)} re-hashes a week per shard -> ${day.sweep.keeps_up ? "keeps up" : "CANNOT finish a weekly cycle"}.`,
  );
  console.log(
    `Shard size: ${f(day.storage.d1_start_gb, 2)} GB each at the start, +${f(day.storage.d1_growth_gb_per_day, 2)} GB/day each (${f(day.storage.d1_bytes_per_envelope)} B per envelope plus integrity checks) -> ${opts.dbLimitGb} GB in ${f(day.storage.days_to_limit, 1)} days.`,
  );
  const g = day.storage.global;
  console.log(
    `Global size: ${f(g.steady_mb, 1)} MB for ${f(opts.orgs)} organizations (${f(g.bytes_per_organization)} B logical each) and a rolling day of ${f(g.keyed_posts_per_day)} idempotency records (${f(g.idempotency_record_bytes)} B each, deleted after 24 h); ` +
      `${g.bytes_per_envelope > 0 ? `+${f(g.growth_mb_per_day, 1)} MB/day (${f(g.bytes_per_envelope)} B of file per envelope measured)` : "nothing per envelope"}.`,
  );
  console.log("\nCost of the day (USD, marginal list prices, no included allowance subtracted):");
  printTable(
    ["line", "usage", "USD"],
    [
      ["Workers requests", f(day.usage.worker_requests), f(day.cost.lines.workers_requests, 2)],
      ["Workers CPU ms (upper bound)", f(day.usage.cpu_ms), f(day.cost.lines.workers_cpu, 2)],
      ["D1 rows read", f(day.usage.d1_rows_read), f(day.cost.lines.d1_rows_read, 2)],
      [`D1 rows written (global ${f(day.usage.global_rows_written)})`, f(day.usage.d1_rows_written), f(day.cost.lines.d1_rows_written, 2)],
      ["R2 class A", f(day.usage.r2_class_a), f(day.cost.lines.r2_class_a, 2)],
      ["R2 class B", f(day.usage.r2_class_b), f(day.cost.lines.r2_class_b, 2)],
      ["Queue messages (x3 operations)", f(day.usage.queue_messages), f(day.cost.lines.queues, 2)],
      ["Durable Object requests", f(day.usage.do_requests), f(day.cost.lines.do_requests, 2)],
      ["total", "", f(day.cost.total, 2)],
    ],
  );
  const fixed = simulateDay(measured, { ...opts, fixedScans: true });
  const per1k = (usd) => f((usd / Math.max(1, opts.envelopes)) * 1000, 3);
  console.log(
    `Per 1,000 envelopes: ${per1k(day.cost.total)} USD this day (cron and growing scans included at ${f(opts.stored)} stored); ` +
      `${per1k(fixed.cost.total)} USD if the growing scans were indexed.`,
  );
  const storage = storageCostPerMonth(opts.envelopes, day.storage.d1_bytes_per_envelope + day.storage.global.bytes_per_envelope, day.storage.r2_bytes_per_envelope);
  console.log(`Storage added by the day: D1 +${f(storage.d1, 2)} USD/month, R2 +${f(storage.r2, 2)} USD/month, for as long as it is kept. Prices: ${PRICES.as_of}.`);
}

/** A phase pair's D1 split per lifecycle (send + completion). */
function phasesPerLifecycle(phases) {
  const out = {};
  for (const k of RESOURCE_KEYS) out[k] = phases.atSend[k] + phases.atCompletion[k];
  return out;
}

function selfCheck() {
  const failures = [];
  const expect = (cond, what) => (cond ? null : failures.push(what));
  const near = (a, b, eps = 1e-6) => Math.abs(a - b) <= eps * Math.max(1, Math.abs(b));
  const w = diurnalWeights();
  expect(w.length === MINUTES && near(w.reduce((a, b) => a + b, 0), 1), "diurnal weights sum to 1 over 1440 minutes");
  expect(w[10 * 60 + 30] > w[3 * 60], "the curve peaks in business hours");
  const s = sendsPerMinute({ envelopes: 1000, bulkShare: 0.4, bursts: [9, 14], burstMinutes: 10 });
  expect(near(s.total.reduce((a, b) => a + b, 0), 1000), "sends conserve the day's envelopes");
  expect(near(s.bulk.reduce((a, b) => a + b, 0), 400) && near(s.bulk[9 * 60], 20), "bulk bursts carry their share, spread over their minutes");
  const c = completionsPerMinute(s.total, 3);
  expect(near(c.reduce((a, b) => a + b, 0), 1000, 1e-4), "completions conserve the sends (steady state)");
  const zero = costOf({ worker_requests: 0, cpu_ms: 0, d1_rows_read: 0, d1_rows_written: 0, r2_class_a: 0, r2_class_b: 0, queue_messages: 0, do_requests: 0 });
  expect(zero.total === 0, "no usage costs nothing");
  const one = costOf({ worker_requests: 1e6, cpu_ms: 0, d1_rows_read: 0, d1_rows_written: 1e6, r2_class_a: 0, r2_class_b: 0, queue_messages: 1e6, do_requests: 0 });
  expect(near(one.total, PRICES.workers_requests_per_million + PRICES.d1_rows_written_per_million + 3 * PRICES.queues_operations_per_million), "a million requests, rows written and messages cost their list prices (a message is 3 operations)");
  // a toy measurement: 1 ms of D1 per lifecycle, no growth
  const toy = {
    measured_at: "check",
    runs: 1,
    steps: [
      { name: "create", worker_requests: 1, cpu_ms: 1, d1_statements: 1, d1_rows_read: 1, d1_rows_written: 1, d1_duration_ms: 0.5, r2_class_a: 0, r2_class_b: 0, r2_bytes_written: 0, queue_messages_sent: 1, do_requests: 1 },
      { name: "sign", worker_requests: 1, cpu_ms: 1, d1_statements: 1, d1_rows_read: 1, d1_rows_written: 1, d1_duration_ms: 0.5, r2_class_a: 1, r2_class_b: 0, r2_bytes_written: 100, queue_messages_sent: 1, do_requests: 0 },
    ],
    lifecycle: { r2_bytes_written: 100 },
    periodic: {},
    d1_file_bytes_per_envelope: 1000,
  };
  const opts = { envelopes: 60_000, bulkShare: 0, bursts: [], burstMinutes: 1, signDelayHours: 1, stored: 0, partnerReads: 0, d1BusyLimit: 0.7, scanUsPerRow: 0.2, d1MsPerStatement: 0.5, fixedScans: false, queueLimit: 5000, doLimit: 1000, dbLimitGb: 10 };
  const day = simulateDay(toy, opts);
  const busy = day.minutes.reduce((a, x) => a + x.d1_busy_ms, 0);
  expect(near(busy, 60_000 * 2 * 0.5, 1e-4), "D1 busy time is statements x time per statement, times the envelopes");
  expect(near(day.storage.d1_growth_gb_per_day, (60_000 * 1000) / 1024 ** 3), "D1 grows by the bytes per envelope");
  const max = maxEnvelopesPerDay(toy, opts);
  const atMax = simulateDay(toy, { ...opts, envelopes: max });
  const over = simulateDay(toy, { ...opts, envelopes: Math.round(max * 1.05) });
  expect(Math.max(...atMax.hours.map((h) => h.d1_busy_peak)) <= 0.7 && Math.max(...over.hours.map((h) => h.d1_busy_peak)) > 0.7, "the D1 bound is where the peak minute crosses the busy limit");
  const growing = { ...toy, steps: toy.steps.map((st) => ({ ...st, d1_rows_read_growth_per_stored_envelope: st.name === "sign" ? 8 : 0 })) };
  const stored = simulateDay(growing, { ...opts, stored: 1_000_000 });
  expect(stored.usage.d1_rows_read > 60_000 * 8 * 1_000_000 * 0.99, "a scanning statement reads in proportion to what is stored");
  const fixed = simulateDay(growing, { ...opts, stored: 1_000_000, fixedScans: true });
  expect(near(fixed.usage.d1_rows_read, day.usage.d1_rows_read), "--fixed-scans removes the growth");
  const shrinking = { ...toy, steps: toy.steps.map((st) => ({ ...st, d1_rows_read_growth_per_stored_envelope: -0.3 })) };
  expect(near(simulateDay(shrinking, { ...opts, stored: 1_000_000 }).usage.d1_rows_read, day.usage.d1_rows_read), "a negative fitted growth (noise) is charged as none, never as a saving");
  // shards: a lifecycle's shard statements spread over the shards, its global ones all on the global database
  const split = {
    ...toy,
    layout: { separate_databases: true, shards: 2 },
    steps: toy.steps.map((st) => ({ ...st, by_database: { global: { statements: 0.2, rows_read: 0, rows_written: 0.2 }, shards: { statements: 0.8, rows_read: 1, rows_written: 0.8 } } })),
  };
  const busyOf = (d, k) => d.minutes.reduce((a, x) => a + x[k], 0);
  const oneShard = simulateDay(split, { ...opts, shards: 1 });
  const twoShards = simulateDay(split, { ...opts, shards: 2 });
  expect(near(busyOf(oneShard, "shard_busy_ms"), 60_000 * 2 * 0.8 * 0.5, 1e-4) && near(busyOf(twoShards, "shard_busy_ms"), 60_000 * 2 * 0.8 * 0.5 / 2, 1e-4), "each of N shards carries 1/N of the lifecycles' shard statements");
  expect(near(busyOf(oneShard, "global_busy_ms"), 60_000 * 2 * 0.2 * 0.5, 1e-4) && near(busyOf(twoShards, "global_busy_ms"), busyOf(oneShard, "global_busy_ms")), "the global database carries every lifecycle's global statements, whatever the shards");
  const keyedDay = simulateDay({ ...split, global_per_keyed_post: { global_extra: { statements: 2, rows_read: 0, rows_written: 4 } } }, { ...opts, shards: 2, keyedPosts: 1 });
  expect(near(busyOf(keyedDay, "global_busy_ms") - busyOf(twoShards, "global_busy_ms"), 60_000 * 2 * 0.5, 1e-4), "a keyed POST adds its idempotency statements to the global writer");
  const maxGlobal = maxEnvelopesPerDay(split, { ...opts, shards: 1 }, "global");
  expect(maxGlobal === maxEnvelopesPerDay(split, { ...opts, shards: 8 }, "global"), "the global database's bound does not depend on the shards");
  expect(maxEnvelopesPerDay(split, { ...opts, shards: 4 }) > maxEnvelopesPerDay(split, { ...opts, shards: 1 }), "more shards carry more envelopes while the global writer has room");
  const oneDb = { ...split, layout: { separate_databases: false, shards: 1 } };
  expect(near(busyOf(simulateDay(oneDb, opts), "shard_busy_ms"), busy), "a one-database measurement is all shard work, as before sharding");
  if (failures.length > 0) {
    console.error(`capacity-sim --check: ${failures.length} FAILED:\n${failures.map((x) => `  - ${x}`).join("\n")}`);
    process.exit(1);
  }
  console.log("capacity-sim --check: all model checks passed");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`capacity-sim: ${err.message}`);
    process.exit(2);
  }
  if (opts.help) {
    console.log(readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n").slice(1, 41).join("\n"));
  } else if (opts.check) selfCheck();
  else {
    let measured;
    try {
      measured = JSON.parse(readFileSync(opts.measured, "utf8"));
    } catch (err) {
      console.error(`capacity-sim: cannot read the measured counts ${opts.measured} (${err.message}); run BENCH_ONLY=capacity npm run bench first`);
      process.exit(2);
    }
    if (opts.shards === undefined) opts.shards = Math.max(1, measured.layout?.shards ?? 1);
    if (opts.growthFromPath) {
      try {
        opts.growthFrom = JSON.parse(readFileSync(opts.growthFromPath, "utf8"));
      } catch (err) {
        console.error(`capacity-sim: cannot read --growth-from ${opts.growthFromPath} (${err.message})`);
        process.exit(2);
      }
    } else if (!opts.chargeFit && (measured.envelopes_stored_before_runs ?? Infinity) < UNCHARGED_FIT_BELOW) opts.uncharged = true;
    if (opts.json) console.log(JSON.stringify(report(measured, opts), null, 2));
    else print(measured, opts);
  }
}
