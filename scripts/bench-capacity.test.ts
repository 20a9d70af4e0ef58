// The capacity measurement behind docs/scaling.md (run by `BENCH_ONLY=capacity npm run bench`, or
// `CAPACITY_OUT=$(mktemp) npx vitest run --config vitest.capacity.config.ts`). Not a test of
// behaviour: it lives under scripts/ so `npm test` never runs it.
//
// One envelope lifecycle (create -> send -> view -> sign, which completes -> vault -> the webhook
// queue's fan-out and deliveries to 3 endpoints), driven through the Worker's own `fetch` and `queue`
// handlers (src/index.ts) inside the Workers runtime, with an env whose bindings are wrapped by
// counting proxies. Instrumentation, not mocks: every D1 statement, R2 call and Durable Object call
// goes to the real (local) binding; the counters read what it answers (D1's meta.rows_read /
// rows_written / size_after, R2 object sizes). The one exception is the queue: a message sent is
// counted and held, and the harness hands the held messages to the Worker's real queue handler (as
// Cloudflare Queues would), so the consumer's own D1/R2/fetch work runs under the same counters
// instead of in a consumer the harness cannot see.
//
// CPU: Date.now() does not advance while a Worker computes, so each step's CPU is read from outside:
// the user + system time of the workerd processes (scripts/bench-capacity-probe.mjs) before and after.
// That process also runs miniflare's local D1/R2/Queue/DO simulators, so it is an upper bound of the
// Worker's billed CPU. A bare step (GET /health) gives the harness's own floor.
import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { inject, it } from "vitest";
import worker from "../src/index";
import type { Env, OutboxMessage } from "../src/env";
import * as integritySweep from "../src/jobs/integrity-sweep";
import { newTenant } from "../test/helpers/api";
import { absolute, buildPdf, uploadTemplate } from "../test/helpers/templates";
import { adminToken, createEndpoint, receiverUrl, waitForRequests } from "../test/helpers/webhooks";

declare module "vitest" {
  interface ProvidedContext {
    capacityProbePort: number;
    capacityRuns: number;
    receiverPort: number;
  }
}

const RUNS = inject("capacityRuns");
const ENDPOINTS = 3;
/** the webhook subscription of the 3 endpoints: one event each, so a lifecycle makes exactly 3 deliveries */
const SUBSCRIBED = ["envelope.completed"];

type Counts = {
  worker_requests: number;
  d1_round_trips: number;
  d1_statements: number;
  d1_rows_read: number;
  d1_rows_written: number;
  /** SQL execution time the database reported (meta.duration): the single writer's busy time */
  d1_duration_ms: number;
  r2_class_a: number;
  r2_class_b: number;
  r2_deletes: number;
  r2_bytes_written: number;
  r2_bytes_read: number;
  queue_messages_sent: number;
  queue_messages_consumed: number;
  do_requests: number;
  outbound_fetches: number;
  cpu_ms: number;
};

const zero = (): Counts => ({
  worker_requests: 0,
  d1_round_trips: 0,
  d1_statements: 0,
  d1_rows_read: 0,
  d1_rows_written: 0,
  d1_duration_ms: 0,
  r2_class_a: 0,
  r2_class_b: 0,
  r2_deletes: 0,
  r2_bytes_written: 0,
  r2_bytes_read: 0,
  queue_messages_sent: 0,
  queue_messages_consumed: 0,
  do_requests: 0,
  outbound_fetches: 0,
  cpu_ms: 0,
});

let current: Counts = zero();
let lastDbSize = 0;
const held: OutboxMessage[] = [];
const statementsSeen = new Map<string, number>();
/** rows read per distinct SQL text in each lifecycle run (index = run), to name the statements whose reads grow */
const readsBySql = new Map<string, number[]>();
let runIndex = -1;
/** rows read per distinct SQL text in the current step (reset by `measure`) */
let stepStatements = new Map<string, { calls: number; rows_read: number; rows_written: number }>();
/** every distinct SQL text with the parameters of its first use, for EXPLAIN QUERY PLAN */
const distinctSql = new Map<string, unknown[]>();

// --- counting bindings -----------------------------------------------------------------------------

/** A D1Database of the runtime's own class over a fetcher that counts what the real one answers. */
function countingD1(real: D1Database): D1Database {
  const inner = (real as unknown as { fetcher: Fetcher }).fetcher;
  if (!inner) throw new Error("this workerd's D1Database has no `fetcher`: the counting wrapper needs updating");
  const fetcher = {
    async fetch(input: RequestInfo | URL, init?: RequestInit) {
      const res = await inner.fetch(input as any, init as any);
      const answer = (await res.clone().json()) as unknown;
      const results = (Array.isArray(answer) ? answer : [answer]) as { meta?: { rows_read?: number; rows_written?: number; size_after?: number; duration?: number } }[];
      current.d1_round_trips += 1;
      current.d1_statements += results.length;
      for (const r of results) {
        current.d1_rows_read += r.meta?.rows_read ?? 0;
        current.d1_rows_written += r.meta?.rows_written ?? 0;
        current.d1_duration_ms += r.meta?.duration ?? 0;
        if (r.meta?.size_after) lastDbSize = r.meta.size_after;
      }
      try {
        const sent = JSON.parse(String(init?.body ?? "null")) as { sql: string } | { sql: string }[];
        const list = (Array.isArray(sent) ? sent : [sent]) as { sql: string; params?: unknown[] }[];
        list.forEach((q, i) => {
          const key = q.sql.replace(/\s+/g, " ").trim().slice(0, 160);
          const st = stepStatements.get(key) ?? { calls: 0, rows_read: 0, rows_written: 0 };
          st.calls += 1;
          st.rows_read += results[i]?.meta?.rows_read ?? 0;
          st.rows_written += results[i]?.meta?.rows_written ?? 0;
          stepStatements.set(key, st);
          if (runIndex < 0) return;
          const reads = readsBySql.get(q.sql) ?? [];
          reads[runIndex] = (reads[runIndex] ?? 0) + (results[i]?.meta?.rows_read ?? 0);
          readsBySql.set(q.sql, reads);
        });
        for (const q of list) {
          if (!distinctSql.has(q.sql)) distinctSql.set(q.sql, q.params ?? []);
          const verb = q.sql.trim().split(/\s+/).slice(0, 3).join(" ").slice(0, 60);
          statementsSeen.set(verb, (statementsSeen.get(verb) ?? 0) + 1);
        }
      } catch {
        /* not JSON: nothing to list */
      }
      return res;
    },
  };
  const D1 = (real as object).constructor as new (f: unknown) => D1Database;
  return new D1(fetcher);
}

const byteLength = (v: unknown): number => {
  if (v === null || v === undefined) return 0;
  if (typeof v === "string") return new TextEncoder().encode(v).byteLength;
  if (v instanceof ArrayBuffer) return v.byteLength;
  if (ArrayBuffer.isView(v)) return v.byteLength;
  if (v instanceof Blob) return v.size;
  return 0;
};

/** R2: class A = put, list, multipart create/part/complete, copy; class B = get, head; delete is free. */
function countingR2(real: R2Bucket): R2Bucket {
  const wrapUpload = (u: R2MultipartUpload): R2MultipartUpload =>
    new Proxy(u, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (prop === "uploadPart")
          return (n: number, v: unknown, o?: unknown) => {
            current.r2_class_a += 1;
            current.r2_bytes_written += byteLength(v);
            return (value as Function).call(target, n, v, o);
          };
        if (prop === "complete") return (...a: unknown[]) => ((current.r2_class_a += 1), (value as Function).apply(target, a));
        return (value as Function).bind(target);
      },
    });
  return new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      const fn = value as Function;
      switch (prop) {
        case "put":
          return async (key: string, v: unknown, o?: unknown) => {
            current.r2_class_a += 1;
            const obj = (await fn.call(target, key, v, o)) as R2Object | null;
            current.r2_bytes_written += obj?.size ?? byteLength(v);
            return obj;
          };
        case "get":
          return async (key: string, o?: R2GetOptions) => {
            current.r2_class_b += 1;
            const obj = (await fn.call(target, key, o)) as R2ObjectBody | R2Object | null;
            if (obj && "body" in obj) {
              const range = obj.range as { offset?: number; length?: number } | undefined;
              current.r2_bytes_read += range?.length ?? obj.size;
            }
            return obj;
          };
        case "head":
          return (...a: unknown[]) => ((current.r2_class_b += 1), fn.apply(target, a));
        case "list":
          return (...a: unknown[]) => ((current.r2_class_a += 1), fn.apply(target, a));
        case "delete":
          return (...a: unknown[]) => ((current.r2_deletes += 1), fn.apply(target, a));
        case "createMultipartUpload":
          return async (...a: unknown[]) => ((current.r2_class_a += 1), wrapUpload(await fn.apply(target, a)));
        case "resumeMultipartUpload":
          return (...a: unknown[]) => wrapUpload(fn.apply(target, a));
        default:
          return fn.bind(target);
      }
    },
  });
}

/** Durable Objects: every call on a stub (RPC method or fetch) is one billed request. */
function countingDO<T extends Rpc.DurableObjectBranded | undefined>(real: DurableObjectNamespace<T & Rpc.DurableObjectBranded>) {
  const wrapStub = (stub: object) =>
    new Proxy(stub, {
      get(target, prop) {
        if (prop === "then" || prop === "id" || prop === "name" || typeof prop === "symbol") return Reflect.get(target, prop);
        const member = Reflect.get(target, prop) as Function;
        return (...args: unknown[]) => {
          current.do_requests += 1;
          // Reflect.apply: `member.apply` on an RPC stub would itself be a remote call named "apply"
          return Reflect.apply(member, target, args);
        };
      },
    });
  return new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "getByName") return (...a: unknown[]) => wrapStub((value as Function).apply(target, a));
      return (value as Function).bind(target);
    },
  });
}

/** The queue: a message sent is counted and held; `drainQueue` hands it to the Worker's consumer. */
const countingQueue = {
  async send(body: OutboxMessage) {
    current.queue_messages_sent += 1;
    held.push(body);
  },
  async sendBatch(messages: Iterable<MessageSendRequest<OutboxMessage>>) {
    for (const m of messages) {
      current.queue_messages_sent += 1;
      held.push(m.body);
    }
  },
} as unknown as Queue<OutboxMessage>;

const realEnv = env as unknown as Env;
const counted: Env = {
  ...realEnv,
  DB: countingD1(realEnv.DB),
  DOCS: countingR2(realEnv.DOCS),
  RATE_LIMITER: countingDO(realEnv.RATE_LIMITER) as Env["RATE_LIMITER"],
  BULK_BATCH: realEnv.BULK_BATCH ? (countingDO(realEnv.BULK_BATCH) as Env["BULK_BATCH"]) : undefined,
  WEBHOOK_QUEUE: countingQueue,
};

// Outbound fetches (webhook deliveries, email providers) are counted, not billed by Cloudflare.
const realFetch = globalThis.fetch;
let countFetches = false;
globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
  if (countFetches) current.outbound_fetches += 1;
  return realFetch(input, init);
}) as typeof fetch;

// --- driving the Worker ------------------------------------------------------------------------------

const probe = () => `http://127.0.0.1:${inject("capacityProbePort")}`;
async function cpuNow(): Promise<number> {
  countFetches = false;
  const res = await realFetch(`${probe()}/cpu`);
  return ((await res.json()) as { cpu_ms: number }).cpu_ms;
}

async function request(method: string, path: string, opts: { key?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { "cf-connecting-ip": "198.51.100.7", "user-agent": "capacity-bench" };
  if (opts.key) headers["X-API-Key"] = opts.key;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["Content-Type"] = "application/json";
  }
  const ctx = createExecutionContext();
  current.worker_requests += 1;
  const res = await worker.fetch(new Request(`http://localhost${path}`, { method, headers, body }), counted, ctx);
  const bytes = await res.arrayBuffer();
  await waitOnExecutionContext(ctx);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${new TextDecoder().decode(bytes).slice(0, 300)}`);
  const text = new TextDecoder().decode(bytes);
  try {
    return JSON.parse(text) as any;
  } catch {
    return text;
  }
}

/** Hands every held message to the Worker's queue handler, in batches of 50 (max_batch_size), until none is left. */
async function drainQueue() {
  let n = 0;
  while (held.length > 0) {
    const bodies = held.splice(0, 50);
    const batch = createMessageBatch<OutboxMessage>(
      "esign-vault-webhooks",
      bodies.map((body) => ({ id: `capacity-${++n}-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 1, body })),
    );
    const ctx = createExecutionContext();
    current.worker_requests += 1; // one consumer invocation
    current.queue_messages_consumed += bodies.length;
    await worker.queue!(batch, counted, ctx);
    const result = await getQueueResult(batch, ctx);
    if (result.retryMessages.length > 0) throw new Error(`queue consumer asked to retry ${result.retryMessages.length} message(s)`);
  }
}

type Step = { name: string; run: () => Promise<void> };

/** One invocation of the Worker's scheduled handler for `cron`, against the counting bindings. */
const scheduled = (cron: string) => async () => {
  const ctx = createExecutionContext();
  current.worker_requests += 1;
  await worker.scheduled!(createScheduledController({ scheduledTime: Date.now(), cron }), counted, ctx);
  await waitOnExecutionContext(ctx);
};

const statementList = () =>
  [...stepStatements.entries()].map(([sql, v]) => ({ sql, ...v })).sort((a, b) => b.rows_read - a.rows_read);
const totals = new Map<string, Counts>();
/** rows_read of each step, run by run: a step whose reads grow as the tables grow scans something */
const readsByRun = new Map<string, number[]>();

async function measure(step: Step, record: boolean) {
  current = zero();
  stepStatements = new Map();
  const before = await cpuNow();
  countFetches = true;
  await step.run();
  countFetches = false;
  current.cpu_ms = (await cpuNow()) - before;
  if (!record) return;
  const sum = totals.get(step.name) ?? zero();
  for (const k of Object.keys(sum) as (keyof Counts)[]) sum[k] += current[k];
  totals.set(step.name, sum);
  readsByRun.set(step.name, [...(readsByRun.get(step.name) ?? []), current.d1_rows_read]);
}

type TableStats = Record<string, { rows: number; bytes: number }>;

/** Rows and logical bytes (every column's value as stored: text/blob length, numbers as text) of every table. */
async function tableStats(): Promise<TableStats> {
  const { results } = await realEnv.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'",
  ).all<{ name: string }>();
  const out: TableStats = {};
  for (const { name } of results) {
    const cols = (await realEnv.DB.prepare(`SELECT name FROM pragma_table_info('${name}')`).all<{ name: string }>()).results;
    const sum = cols.map((c) => `coalesce(length("${c.name}"), 0)`).join(" + ") || "0";
    const row = await realEnv.DB.prepare(`SELECT count(*) AS n, coalesce(sum(${sum}), 0) AS b FROM "${name}"`).first<{ n: number; b: number }>();
    out[name] = { rows: row?.n ?? 0, bytes: row?.b ?? 0 };
  }
  return out;
}

function statsDelta(after: TableStats, before: TableStats, per: number) {
  const out: Record<string, { rows: number; bytes: number }> = {};
  for (const [table, a] of Object.entries(after)) {
    const b = before[table] ?? { rows: 0, bytes: 0 };
    if (a.rows === b.rows && a.bytes === b.bytes) continue;
    out[table] = { rows: round3((a.rows - b.rows) / per), bytes: Math.round((a.bytes - b.bytes) / per) };
  }
  return out;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Statements whose static plan reads a table without an index. A plan line is not proof of a runtime
 * scan (SQLite's foreign-key checks appear in INSERT plans but run only with pending violations):
 * `d1_rows_read_growth_per_stored_envelope` is the empirical check.
 */
async function fullScans(): Promise<{ sql: string; plan: string }[]> {
  const out: { sql: string; plan: string }[] = [];
  for (const [sql, params] of distinctSql) {
    if (!/^\s*(select|update|delete|insert|with)/i.test(sql)) continue;
    try {
      const { results } = await realEnv.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...(params as unknown[])).all<{ detail: string }>();
      // SEARCH is a seek; SCAN (even USING INDEX: an ordered walk of the whole index) reads every row
      const scans = results.map((r) => r.detail).filter((d) => /^SCAN /.test(d) && !/VIRTUAL TABLE|CONSTANT ROW|\(subquery-\d+\)/.test(d));
      if (scans.length > 0) out.push({ sql: sql.replace(/\s+/g, " ").slice(0, 160), plan: scans.join("; ") });
    } catch {
      /* a statement EXPLAIN cannot take as it is: skipped */
    }
  }
  return out;
}

it("measures one envelope lifecycle against counting bindings", async () => {
  // Setup, not measured: a tenant, a 4-page contract template, 3 endpoints on the loopback receiver.
  const t = await newTenant({ rpm: 100_000 });
  const token = await adminToken(t.orgId);
  const targets = Array.from({ length: ENDPOINTS }, () => receiverUrl("ok"));
  for (const target of targets) await createEndpoint(token, { url: target.url, events: SUBSCRIBED });
  const pages = Array.from({ length: 4 }, (_, i) => ({
    lines: Array.from({ length: 40 }, (_, l) => ({ text: `Retail installment contract, page ${i + 1}, clause ${l + 1}: the buyer agrees to pay the amount financed.`, x: 40, y: 760 - l * 18, size: 9 })),
  }));
  const { bytes } = await buildPdf(pages);
  const fields = [
    absolute("buyer_signature", [{ page: 4, x: 0.1, y: 0.85, w: 0.3, h: 0.05 }], { role: "buyer", required: true }),
    absolute("buyer_name", [{ page: 4, x: 0.5, y: 0.85, w: 0.3, h: 0.04 }], { role: "buyer", type: "text", required: true }),
    absolute("buyer_date", [{ page: 4, x: 0.5, y: 0.9, w: 0.2, h: 0.04 }], { role: "buyer", type: "date" }),
  ];
  const template = await uploadTemplate(t.key, { file: bytes, fields });
  if (template.status !== 200) throw new Error(`template upload failed: ${JSON.stringify(template.body)}`);
  const templateId = template.body.data.template_id as string;
  const signature = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

  let sizeAfterWarmup = 0;
  let cronReadsAfterWarmup = 0;
  let statsAfterWarmup: TableStats = {};
  for (let run = 0; run <= RUNS; run++) {
    const record = run > 0; // run 0 warms the isolate, the key's Durable Object and the module caches
    runIndex = run - 1;
    let envelopeId = "";
    let slug = "";
    const steps: Step[] = [
      { name: "bare: GET /health (harness floor)", run: async () => void (await request("GET", "/health")) },
      {
        name: "create: POST /partner/envelopes (from template)",
        run: async () => {
          const created = await request("POST", "/api/v2/partner/envelopes", {
            key: t.key,
            body: { template_id: templateId, envelope_name: `Contract ${run}`, customer_email: `buyer${run}@example.com`, customer_name: `Buyer ${run}` },
          });
          envelopeId = created.data.envelope_id;
        },
      },
      {
        name: "send: POST /partner/envelopes/:id/send (1 signer)",
        run: async () => {
          const sent = await request("POST", `/api/v2/partner/envelopes/${envelopeId}/send`, {
            key: t.key,
            body: { signers: [{ role: "buyer", email: `buyer${run}@example.com`, name: `Buyer ${run}`, routing_order: 1 }] },
          });
          slug = sent.data.signers[0].slug;
        },
      },
      {
        name: "view: signing page + state + document + POST view",
        run: async () => {
          await request("GET", `/sign/s/${slug}`);
          await request("GET", `/api/v2/signing/${slug}`);
          await request("GET", `/api/v2/signing/${slug}/document`);
          await request("POST", `/api/v2/signing/${slug}/view`);
        },
      },
      {
        name: "sign + complete: POST submit (last signer: stamp, certificate, seal)",
        run: async () => void (await request("POST", `/api/v2/signing/${slug}/submit`, { body: { values: { buyer_signature: signature, buyer_name: `Buyer ${run}` } } })),
      },
      { name: "vault: POST /partner/envelopes/:id/vault-in-signed", run: async () => void (await request("POST", `/api/v2/partner/envelopes/${envelopeId}/vault-in-signed`, { key: t.key, body: {} })) },
      { name: "webhooks: queue consumer (every message the steps left on the queue)", run: drainQueue },
    ];
    for (const step of steps) await measure(step, record);
    if (run === 0) {
      sizeAfterWarmup = lastDbSize;
      statsAfterWarmup = await tableStats();
      runIndex = -1;
      await measure({ name: "cron tick", run: scheduled("* * * * *") }, false).catch(() => undefined);
      cronReadsAfterWarmup = current.d1_rows_read;
    }
  }
  const sizeAfterRuns = lastDbSize;
  const statsAfterRuns = await tableStats();
  // Every lifecycle's delivery reached each receiver (at least once: duplicates are reported, not fatal).
  const receipts: number[] = [];
  for (const target of targets) {
    const got = await waitForRequests(target.path, RUNS + 1, 5_000);
    if (got.length < RUNS + 1) throw new Error(`receiver ${target.path} got ${got.length} deliveries, expected ${RUNS + 1}`);
    receipts.push(got.length);
  }

  runIndex = -1;
  const growingStatements = [...readsBySql.entries()]
    .map(([sql, reads]) => ({ sql: sql.replace(/\s+/g, " ").trim().slice(0, 200), first: reads[0] ?? 0, last: reads[RUNS - 1] ?? 0 }))
    .filter((r) => RUNS > 1 && r.last > r.first)
    .map((r) => ({ sql: r.sql, rows_read_first_run: r.first, rows_read_last_run: r.last, growth_per_stored_envelope: round3((r.last - r.first) / (RUNS - 1)) }))
    .sort((a, b) => b.growth_per_stored_envelope - a.growth_per_stored_envelope);
  // The periodic work, measured once each with the same counters (not part of the lifecycle).
  // A periodic job that throws (say, mid-change by another branch) is reported, not fatal to the lifecycle figures.
  const periodic: Record<string, (Counts & { per: string; d1_rows_read_growth_per_stored_envelope?: number; statements?: unknown }) | { error: string }> = {};
  const attempt = async (label: string, fn: () => Promise<void>) => {
    try {
      await fn();
      return true;
    } catch (err) {
      periodic[label] = { error: String(err).slice(0, 300) };
      return false;
    }
  };
  const tickLabel = "cron tick (every minute: expiry, relay, sweep, integrity batch, email retry, prune), nothing due";
  if (await attempt(tickLabel, () => measure({ name: "cron tick", run: scheduled("* * * * *") }, false))) periodic[tickLabel] = {
      ...current,
      per: "tick",
      d1_rows_read_growth_per_stored_envelope: round3((current.d1_rows_read - cronReadsAfterWarmup) / RUNS),
      statements: statementList(),
    } as Counts & { per: string };
  const beforeSweep = await tableStats();
  const sweepLabel = "integrity sweep, per vaulted document re-hashed (weekly)";
  const swept = await attempt(sweepLabel, () => measure({ name: "weekly integrity sweep", run: scheduled(integritySweep.INTEGRITY_SWEEP_CRON ?? "0 3 * * 0") }, false));
  const sweepStats = await tableStats();
  const checked = swept ? (sweepStats.vault_integrity_checks?.rows ?? 0) - (beforeSweep.vault_integrity_checks?.rows ?? 0) : 0;
  const sweepCounts = { ...current };
  if (checked > 0) {
    periodic[sweepLabel] = {
      ...(Object.fromEntries(Object.entries(sweepCounts).map(([k, v]) => [k, round3(v / checked)])) as Counts),
      per: `document (${checked} re-hashed in one batch)`,
      statements: statementList(),
    };
  }

  const perLifecycle = (c: Counts) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, round3(v / RUNS)])) as Counts;
  // Least-squares slope of rows_read over the runs: extra rows read per envelope already stored.
  const slope = (ys: number[]) => {
    const n = ys.length;
    if (n < 2) return 0;
    const mx = (n - 1) / 2;
    const my = ys.reduce((a, b) => a + b, 0) / n;
    let num = 0;
    let den = 0;
    ys.forEach((y, x) => ((num += (x - mx) * (y - my)), (den += (x - mx) ** 2)));
    return round3(num / den);
  };
  const steps = [...totals.entries()].map(([name, c]) => ({ name, ...perLifecycle(c), d1_rows_read_growth_per_stored_envelope: slope(readsByRun.get(name) ?? []) }));
  const lifecycle = zero();
  for (const s of steps.slice(1)) for (const k of Object.keys(lifecycle) as (keyof Counts)[]) lifecycle[k] += s[k];
  const growth = round3(steps.slice(1).reduce((a, s) => a + s.d1_rows_read_growth_per_stored_envelope, 0));
  for (const k of Object.keys(lifecycle) as (keyof Counts)[]) lifecycle[k] = round3(lifecycle[k]);
  const limits = (integritySweep as { DEFAULT_SWEEP_LIMITS?: { maxDocuments?: number; maxBytes?: number } }).DEFAULT_SWEEP_LIMITS;
  const result = {
    measured_at: new Date().toISOString(),
    runs: RUNS,
    lifecycle_definition:
      "create from a 4-page template -> send to 1 signer -> signing page, state, document, view -> submit (completes: stamp, certificate page, PAdES seal) -> vault-in-signed -> the queue consumer on every message left; 3 endpoints subscribed to envelope.completed get one delivery each, wherever it is sent from",
    template_pdf_bytes: bytes.byteLength,
    webhook_receipts_per_endpoint: { expected: RUNS + 1, received: receipts },
    steps,
    lifecycle,
    d1_rows_read_growth_per_stored_envelope: growth,
    periodic,
    d1_file_bytes_per_envelope: Math.round((sizeAfterRuns - sizeAfterWarmup) / RUNS),
    d1_stored_per_envelope: statsDelta(statsAfterRuns, statsAfterWarmup, RUNS),
    d1_stored_per_integrity_check: checked > 0 ? statsDelta(sweepStats, beforeSweep, checked) : null,
    integrity_sweep_limits: limits ? { max_documents_per_run: limits.maxDocuments ?? null, max_bytes_per_run: limits.maxBytes ?? null } : null,
    growing_statements: growingStatements,
    full_scans: await fullScans(),
    statements_by_verb: Object.fromEntries([...statementsSeen.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40)),
  };
  await realFetch(`${probe()}/result`, { method: "POST", body: JSON.stringify(result, null, 2) });
});
