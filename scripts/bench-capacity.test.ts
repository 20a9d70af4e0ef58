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
//
// Databases: `DB` (the global database) and every `SHARD_<n>` are wrapped separately, and each statement
// is counted on the database it was sent to (`global`, `shard <n>`): every step reports its D1 work per
// database, and storage is measured per database, so the figures show what the global database carries
// (docs/decisions/shards.md: per organization and per keyed request, never per envelope).
//
// Stored envelopes (CAPACITY_STORED, `BENCH_CAPACITY_STORED` in the bench; default 0): before the
// measured runs the harness runs 3 real lifecycles in each of four organizations placed on the measured
// organization's shard and copies their rows in SQL, each database's within that database (`seedStored`),
// until that many envelopes are stored on the shard, so a statement whose reads grow with the tables
// shows at 5,000+ stored, not only in a 10-run slope over a nearly empty database.
import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { inject, it } from "vitest";
import worker from "../src/index";
import type { Env, OutboxMessage } from "../src/env";
import * as integritySweep from "../src/jobs/integrity-sweep";
import { randomToken } from "../src/lib/ids";
import { newTenant } from "../test/helpers/api";
import { absolute, buildPdf, uploadTemplate } from "../test/helpers/templates";
import { adminToken, createEndpoint, receiverUrl, waitForRequests } from "../test/helpers/webhooks";

declare module "vitest" {
  interface ProvidedContext {
    capacityProbePort: number;
    capacityRuns: number;
    capacityStored: number;
    receiverPort: number;
  }
}

const RUNS = inject("capacityRuns");
/** envelopes already stored before the measured lifecycles (BENCH_CAPACITY_STORED; 0: an empty database) */
const STORED = inject("capacityStored") ?? 0;
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
const held: OutboxMessage[] = [];

/**
 * D1 work of one database: the global one (`DB`, label `global`) or a shard (`SHARD_<n>`, label
 * `shard <n>`). Every statement is attributed to the binding it was sent on (docs/decisions/shards.md).
 */
type DbCounts = { statements: number; round_trips: number; rows_read: number; rows_written: number };
const zeroDb = (): DbCounts => ({ statements: 0, round_trips: 0, rows_read: 0, rows_written: 0 });
/** the current step's D1 work per database label */
let currentDb: Record<string, DbCounts> = {};
const statementsSeen = new Map<string, number>();
/** rows read per distinct (database, SQL text) in each lifecycle run (index = run), to name the statements whose reads grow */
const readsBySql = new Map<string, number[]>();
let runIndex = -1;
/** false while the stored envelopes are seeded: their statements are not listed */
let listing = true;
/** the step each distinct (database, SQL text) was first read in (for the per-statement table) */
const stepOfSql = new Map<string, string>();
let currentStep = "";
/** rows read per distinct SQL text in the current step (reset by `measure`) */
let stepStatements = new Map<string, { calls: number; rows_read: number; rows_written: number }>();
/** every distinct (database, SQL text) with the parameters of its first use, for EXPLAIN QUERY PLAN */
const distinctSql = new Map<string, { db: string; sql: string; params: unknown[] }>();
/** key of a statement in the maps above: its database's label and its text */
const sqlKey = (db: string, sql: string) => `${db}\u0001${sql}`;
const splitKey = (key: string) => {
  const i = key.indexOf("\u0001");
  return { db: key.slice(0, i), sql: key.slice(i + 1) };
};

// --- counting bindings -----------------------------------------------------------------------------

/** A D1Database of the runtime's own class over a fetcher that counts what the real one answers, as database `label`. */
function countingD1(real: D1Database, label: string): D1Database {
  const inner = (real as unknown as { fetcher: Fetcher }).fetcher;
  if (!inner) throw new Error("this workerd's D1Database has no `fetcher`: the counting wrapper needs updating");
  const fetcher = {
    async fetch(input: RequestInfo | URL, init?: RequestInit) {
      const res = await inner.fetch(input as any, init as any);
      const answer = (await res.clone().json()) as unknown;
      const results = (Array.isArray(answer) ? answer : [answer]) as { meta?: { rows_read?: number; rows_written?: number; size_after?: number; duration?: number } }[];
      const db = (currentDb[label] ??= zeroDb());
      current.d1_round_trips += 1;
      current.d1_statements += results.length;
      db.round_trips += 1;
      db.statements += results.length;
      for (const r of results) {
        current.d1_rows_read += r.meta?.rows_read ?? 0;
        current.d1_rows_written += r.meta?.rows_written ?? 0;
        current.d1_duration_ms += r.meta?.duration ?? 0;
        db.rows_read += r.meta?.rows_read ?? 0;
        db.rows_written += r.meta?.rows_written ?? 0;
      }
      try {
        const sent = JSON.parse(String(init?.body ?? "null")) as { sql: string } | { sql: string }[];
        const list = (Array.isArray(sent) ? sent : [sent]) as { sql: string; params?: unknown[] }[];
        list.forEach((q, i) => {
          const key = `[${label}] ${q.sql.replace(/\s+/g, " ").trim().slice(0, 160)}`;
          const st = stepStatements.get(key) ?? { calls: 0, rows_read: 0, rows_written: 0 };
          st.calls += 1;
          st.rows_read += results[i]?.meta?.rows_read ?? 0;
          st.rows_written += results[i]?.meta?.rows_written ?? 0;
          stepStatements.set(key, st);
          if (runIndex < 0) return;
          const k = sqlKey(label, q.sql);
          if (!stepOfSql.has(k)) stepOfSql.set(k, currentStep);
          const reads = readsBySql.get(k) ?? [];
          reads[runIndex] = (reads[runIndex] ?? 0) + (results[i]?.meta?.rows_read ?? 0);
          readsBySql.set(k, reads);
        });
        for (const q of list) {
          if (!listing) continue;
          const k = sqlKey(label, q.sql);
          if (!distinctSql.has(k)) distinctSql.set(k, { db: label, sql: q.sql, params: q.params ?? [] });
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
/**
 * The databases this pool binds: the global one (`DB`) and every `SHARD_<n>`, each with its label. When
 * no `SHARD_1` is bound, shard 1 is `DB` itself (src/lib/shards.ts): one database, labelled `global`.
 */
const DATABASES: { label: string; binding: string; shard: number | null; real: D1Database }[] = [
  { label: "global", binding: "DB", shard: null, real: realEnv.DB },
  ...Object.keys(realEnv)
    .map((name) => /^SHARD_([1-9][0-9]*)$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null && !!(realEnv as unknown as Record<string, unknown>)[m[0]])
    .map((m) => ({ label: `shard ${m[1]}`, binding: m[0], shard: Number(m[1]), real: (realEnv as unknown as Record<string, D1Database>)[m[0]]! }))
    .sort((a, b) => a.shard - b.shard),
];
/** Whether the shards are databases of their own (false: the one-database layout, shard 1 = `DB`). */
const SEPARATE = DATABASES.some((d) => d.shard === 1);
const labelOfShard = (n: number) => (DATABASES.some((d) => d.shard === n) ? `shard ${n}` : "global");
const realDb = (label: string) => DATABASES.find((d) => d.label === label)!.real;
const counted: Env = {
  ...realEnv,
  ...Object.fromEntries(DATABASES.map((d) => [d.binding, countingD1(d.real, d.label)])),
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

async function request(method: string, path: string, opts: { key?: string; body?: unknown; idempotencyKey?: string } = {}) {
  const headers: Record<string, string> = { "cf-connecting-ip": "198.51.100.7", "user-agent": "capacity-bench" };
  if (opts.key) headers["X-API-Key"] = opts.key;
  if (opts.idempotencyKey) headers["Idempotency-Key"] = opts.idempotencyKey;
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
/** D1 work per step per database label, summed over the recorded runs */
const dbTotals = new Map<string, Record<string, DbCounts>>();
/** rows read by each step on the global database, run by run */
const globalReadsByRun = new Map<string, number[]>();
/** rows_read of each step, run by run: a step whose reads grow as the tables grow scans something */
const readsByRun = new Map<string, number[]>();

async function measure(step: Step, record: boolean) {
  current = zero();
  currentDb = {};
  currentStep = step.name;
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
  globalReadsByRun.set(step.name, [...(globalReadsByRun.get(step.name) ?? []), currentDb.global?.rows_read ?? 0]);
  const byDb = dbTotals.get(step.name) ?? {};
  for (const [label, c] of Object.entries(currentDb)) {
    const into = (byDb[label] ??= zeroDb());
    for (const k of Object.keys(into) as (keyof DbCounts)[]) into[k] += c[k];
  }
  dbTotals.set(step.name, byDb);
}

/**
 * D1 work split by database, divided by `per`: `global`, `shards` (the sum over every shard) and each
 * `shard <n>` that was touched. In the one-database layout everything is `global` (= shard 1).
 */
function byDatabase(counts: Record<string, DbCounts>, per = 1) {
  const div = (c: DbCounts) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, round3(v / per)])) as DbCounts;
  const shards = zeroDb();
  for (const [label, c] of Object.entries(counts)) if (label.startsWith("shard ")) for (const k of Object.keys(shards) as (keyof DbCounts)[]) shards[k] += c[k];
  const each = Object.fromEntries(
    Object.entries(counts)
      .filter(([label]) => label.startsWith("shard "))
      .sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }))
      .map(([label, c]) => [label, div(c)]),
  );
  return { global: div(counts.global ?? zeroDb()), shards: div(shards), ...each };
}
const sumDb = (into: Record<string, DbCounts>, from: Record<string, DbCounts>) => {
  for (const [label, c] of Object.entries(from)) {
    const t = (into[label] ??= zeroDb());
    for (const k of Object.keys(t) as (keyof DbCounts)[]) t[k] += c[k];
  }
  return into;
};

/** The database file's size (D1's meta.size_after of a trivial read), in bytes. */
async function fileSize(db: D1Database): Promise<number> {
  const r = await db.prepare("SELECT 1 AS one").run();
  return (r.meta as { size_after?: number }).size_after ?? 0;
}
const fileSizes = async () => Object.fromEntries(await Promise.all(DATABASES.map(async (d) => [d.label, await fileSize(d.real)] as const))) as Record<string, number>;

type TableStats = Record<string, { rows: number; bytes: number }>;

/** Rows and logical bytes (every column's value as stored: text/blob length, numbers as text) of every table of `db`. */
async function tableStats(db: D1Database = realEnv.DB): Promise<TableStats> {
  const { results } = await db.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'",
  ).all<{ name: string }>();
  const out: TableStats = {};
  for (const { name } of results) {
    const cols = (await db.prepare(`SELECT name FROM pragma_table_info('${name}')`).all<{ name: string }>()).results;
    const sum = cols.map((c) => `coalesce(length("${c.name}"), 0)`).join(" + ") || "0";
    const row = await db.prepare(`SELECT count(*) AS n, coalesce(sum(${sum}), 0) AS b FROM "${name}"`).first<{ n: number; b: number }>();
    out[name] = { rows: row?.n ?? 0, bytes: row?.b ?? 0 };
  }
  return out;
}

/** Table stats of every database, by label. */
const allTableStats = async () => Object.fromEntries(await Promise.all(DATABASES.map(async (d) => [d.label, await tableStats(d.real)] as const))) as Record<string, TableStats>;

/** Per database: the rows and bytes added per `per` (tables that changed only), and their totals. */
function statsDeltaByDb(after: Record<string, TableStats>, before: Record<string, TableStats>, per: number) {
  return Object.fromEntries(
    Object.keys(after).map((label) => {
      const tables = statsDelta(after[label]!, before[label] ?? {}, per);
      const rows = round3(Object.values(tables).reduce((a, t) => a + t.rows, 0));
      const bytes = Object.values(tables).reduce((a, t) => a + t.bytes, 0);
      return [label, { rows, bytes, tables }];
    }),
  );
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
  for (const { db, sql, params } of distinctSql.values()) {
    if (!/^\s*(select|update|delete|insert|with)/i.test(sql)) continue;
    try {
      const { results } = await realDb(db).prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...(params as unknown[])).all<{ detail: string }>();
      // SEARCH is a seek; SCAN (even USING INDEX: an ordered walk of the whole index) reads every row
      const scans = results.map((r) => r.detail).filter((d) => /^SCAN /.test(d) && !/VIRTUAL TABLE|CONSTANT ROW|\(subquery-\d+\)/.test(d));
      if (scans.length > 0) out.push({ sql: `[${db}] ${sql.replace(/\s+/g, " ").slice(0, 160)}`, plan: scans.join("; ") });
    } catch {
      /* a statement EXPLAIN cannot take as it is: skipped */
    }
  }
  return out;
}

const SIGNATURE = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
type Tenant = { key: string; orgId: string; templateId: string; targets: { url: string; path: string }[] };

/** An organization with the lifecycle's 4-page template and `endpoints` webhook endpoints on the loopback receiver. */
async function setUpTenant(name: string, endpoints: number, pdf: Uint8Array, shard?: number): Promise<Tenant> {
  const t = await newTenant({ rpm: 100_000, name, ...(shard !== undefined ? { shard } : {}) });
  const token = await adminToken(t.orgId);
  const targets = Array.from({ length: endpoints }, () => receiverUrl("ok"));
  for (const target of targets) await createEndpoint(token, { url: target.url, events: SUBSCRIBED });
  const fields = [
    absolute("buyer_signature", [{ page: 4, x: 0.1, y: 0.85, w: 0.3, h: 0.05 }], { role: "buyer", required: true }),
    absolute("buyer_name", [{ page: 4, x: 0.5, y: 0.85, w: 0.3, h: 0.04 }], { role: "buyer", type: "text", required: true }),
    absolute("buyer_date", [{ page: 4, x: 0.5, y: 0.9, w: 0.2, h: 0.04 }], { role: "buyer", type: "date" }),
  ];
  const template = await uploadTemplate(t.key, { file: pdf, fields });
  if (template.status !== 200) throw new Error(`template upload failed: ${JSON.stringify(template.body)}`);
  return { key: t.key, orgId: t.orgId, templateId: template.body.data.template_id as string, targets };
}

/** The steps of one lifecycle in `tn`; `tag` makes the customer and signer distinct. */
function lifecycleSteps(tn: Tenant, tag: string): Step[] {
  let envelopeId = "";
  let slug = "";
  const email = `buyer-${tag}@example.com`;
  return [
    { name: "bare: GET /health (harness floor)", run: async () => void (await request("GET", "/health")) },
    {
      name: "create: POST /partner/envelopes (from template)",
      run: async () => {
        const created = await request("POST", "/api/v2/partner/envelopes", {
          key: tn.key,
          body: { template_id: tn.templateId, envelope_name: `Contract ${tag}`, customer_email: email, customer_name: `Buyer ${tag}` },
        });
        envelopeId = created.data.envelope_id;
      },
    },
    {
      name: "send: POST /partner/envelopes/:id/send (1 signer)",
      run: async () => {
        const sent = await request("POST", `/api/v2/partner/envelopes/${envelopeId}/send`, {
          key: tn.key,
          body: { signers: [{ role: "buyer", email, name: `Buyer ${tag}`, routing_order: 1 }] },
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
      run: async () => void (await request("POST", `/api/v2/signing/${slug}/submit`, { body: { values: { buyer_signature: SIGNATURE, buyer_name: `Buyer ${tag}` } } })),
    },
    { name: "vault: POST /partner/envelopes/:id/vault-in-signed", run: async () => void (await request("POST", `/api/v2/partner/envelopes/${envelopeId}/vault-in-signed`, { key: tn.key, body: {} })) },
    { name: "webhooks: queue consumer (every message the steps left on the queue)", run: drainQueue },
  ];
}

// --- many envelopes already stored (BENCH_CAPACITY_STORED) ---------------------------------------------

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
type Column = { name: string; type: string; pk: number };

/** Every table's columns and foreign-key parents, parents before children (one schema on every database). */
async function tablesInOrder(db: D1Database = realEnv.DB): Promise<{ name: string; columns: Column[]; uniques: string[][] }[]> {
  const { results } = await db.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'",
  ).all<{ name: string }>();
  const info = new Map<string, { columns: Column[]; parents: string[]; uniques: string[][] }>();
  for (const { name } of results) {
    const columns = (await db.prepare(`SELECT name, type, pk FROM pragma_table_info('${name}')`).all<Column>()).results;
    const parents = (await db.prepare(`SELECT DISTINCT "table" AS parent FROM pragma_foreign_key_list('${name}')`).all<{ parent: string }>()).results.map((r) => r.parent);
    const indexes = (await db.prepare(`SELECT name, origin FROM pragma_index_list('${name}') WHERE "unique" = 1`).all<{ name: string; origin: string }>()).results;
    const uniques: string[][] = [];
    for (const ix of indexes) uniques.push((await db.prepare(`SELECT name FROM pragma_index_info('${ix.name}')`).all<{ name: string }>()).results.map((r) => r.name));
    // a composite primary key without rowid alias is a unique index too (pk > 0 on several columns)
    const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    if (pk.length > 0 && !uniques.some((u) => u.join() === pk.join())) uniques.push(pk);
    info.set(name, { columns, parents: parents.filter((p) => p !== name), uniques });
  }
  const out: { name: string; columns: Column[]; uniques: string[][] }[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name) || !info.has(name)) return;
    seen.add(name);
    for (const p of info.get(name)!.parents) visit(p);
    out.push({ name, ...info.get(name)! });
  };
  for (const name of info.keys()) visit(name);
  return out;
}

/**
 * Global tables whose rows a shard holds only as foreign-key anchors (docs/decisions/shards.md, "FK
 * anchors"): the seed lifecycles write an endpoint's anchor on the shard with its first delivery there;
 * a copy must not multiply them (one anchor per endpoint, whatever the envelopes).
 */
const ANCHOR_TABLES = new Set(["organizations", "webhook_endpoints"]);

const maxRowids = async (db: D1Database, tables: { name: string }[]) => {
  const out = new Map<string, number>();
  for (const t of tables) out.set(t.name, (await db.prepare(`SELECT coalesce(max(rowid), 0) AS m FROM ${q(t.name)}`).first<{ m: number }>())?.m ?? 0);
  return out;
};

/**
 * Fills the measured shard to `target` envelopes: a few real lifecycles in several organizations, all
 * placed on the shard the measured organization lives on (every row the Worker writes for them, on the
 * database it writes it to: customer, envelope, signer, documents, fields, audit chain, events,
 * deliveries and attempts, emails, vault record, certificate on the shard; whatever the global database
 * takes per lifecycle on `DB`), then their rows copied in SQL with fresh ids, each database's rows within
 * that database, until `target` envelopes are stored on the shard. A copy's every id-valued column (any
 * column holding an id of a row the seed lifecycles wrote, on any database: primary keys, foreign keys,
 * chain_id, actor_id, vault_id, …) gets the copy's random tag over the first 8 characters of its
 * 26-character random part (`env_2_<tag><18>`: the shard number an id carries stays readable by
 * `shardOf`, and the copies spread over each index as issued ids do), so ids, chains and signers stay
 * distinct across databases alike and each index keeps the selectivity it has in a real database; the
 * organization, its template and endpoints (and their anchors on the shard) stay shared, as in one
 * organization's real data. Unique text values that are not ids (a customer's email, a signer's slug
 * hash) get the tag in front. Timestamps move back 7 minutes per copy, so copies are older than the
 * measured lifecycles. Rows of an organization's own audit chain (not an envelope's) are not copied:
 * their (chain, seq) is unique.
 */
async function seedStored(tenants: Tenant[], perTenant: number, target: number, shardLabel: string) {
  const started = Date.now();
  const tables = await tablesInOrder();
  const shard = realDb(shardLabel);
  const before = new Map<string, Map<string, number>>();
  for (const d of DATABASES) before.set(d.label, await maxRowids(d.real, tables));
  listing = false;
  for (let i = 0; i < perTenant; i++) for (const [n, tn] of tenants.entries()) for (const step of lifecycleSteps(tn, `seed-${n}-${i}`)) await step.run();
  listing = true;
  const after = new Map<string, Map<string, number>>();
  for (const d of DATABASES) after.set(d.label, await maxRowids(d.real, tables));
  /** per database, the tables the seed lifecycles added rows to (anchors on a shard left out) */
  const seeded = new Map<string, typeof tables>();
  for (const d of DATABASES) {
    const b = before.get(d.label)!;
    const a = after.get(d.label)!;
    seeded.set(d.label, tables.filter((t) => a.get(t.name)! > b.get(t.name)! && !(SEPARATE && d.shard !== null && ANCHOR_TABLES.has(t.name))));
  }
  // ids of the seed rows, on every database: every single-column text primary key's value
  const ids: string[] = [];
  for (const d of DATABASES)
    for (const t of seeded.get(d.label)!) {
      const pk = t.columns.filter((c) => c.pk > 0);
      if (pk.length !== 1 || !/text/i.test(pk[0]!.type)) continue;
      const { results } = await d.real
        .prepare(`SELECT ${q(pk[0]!.name)} AS id FROM ${q(t.name)} WHERE rowid > ? AND rowid <= ?`)
        .bind(before.get(d.label)!.get(t.name), after.get(d.label)!.get(t.name))
        .all<{ id: string }>();
      ids.push(...results.map((r) => r.id));
    }
  const idJson = JSON.stringify(ids);
  const seedEnvelopes = after.get(shardLabel)!.get("envelopes")! - before.get(shardLabel)!.get("envelopes")!;
  if (seedEnvelopes <= 0) throw new Error(`the seed lifecycles stored no envelope on ${shardLabel}`);
  const stored = (await shard.prepare("SELECT count(*) AS n FROM envelopes").first<{ n: number }>())!.n;
  const copies = Math.max(0, Math.ceil((target - stored) / seedEnvelopes));
  const taggedNotId = new Set(["customers.email", "customers.email_normalized", "signers.slug_hash", "signers.email", "usage_lines.unique_key"]);
  const plans: { db: string; table: string; sql: string }[] = [];
  for (const d of DATABASES)
    for (const t of seeded.get(d.label)!) {
      const b = before.get(d.label)!.get(t.name)!;
      const a = after.get(d.label)!.get(t.name)!;
      const idCols = new Set<string>();
      for (const c of t.columns) {
        if (!/text/i.test(c.type)) continue;
        const hit = await d.real
          .prepare(`SELECT 1 AS x FROM ${q(t.name)} WHERE rowid > ? AND rowid <= ? AND ${q(c.name)} IN (SELECT value FROM json_each(?)) LIMIT 1`)
          .bind(b, a, idJson)
          .first();
        if (hit) idCols.add(c.name);
      }
      // an INTEGER PRIMARY KEY is the rowid: the copy gets a fresh one
      const rowidAlias = t.columns.find((c) => c.pk === 1 && /^integer$/i.test(c.type) && t.columns.filter((x) => x.pk > 0).length === 1);
      const cols = t.columns.filter((c) => c !== rowidAlias);
      const expr = (c: Column) => {
        const v = `t.${q(c.name)}`;
        // the tag in front of the value's part after its first `_` (a non-id unique value)
        const prefixed = `substr(${v}, 1, instr(${v}, '_')) || s.value || substr(${v}, instr(${v}, '_') + 1)`;
        // an id `<prefix>_[<shard>_]<26 random>`: the tag over the random part's first 8 characters,
        // so the copy keeps its length and the shard number `shardOf` reads
        const overRandom = `CASE WHEN length(${v}) >= 27 AND substr(${v}, length(${v}) - 26, 1) = '_' THEN substr(${v}, 1, length(${v}) - 26) || s.value || substr(${v}, length(${v}) - 17) ELSE ${prefixed} END`;
        if (idCols.has(c.name)) return `CASE WHEN ${v} IN (SELECT value FROM json_each(?1)) THEN ${overRandom} ELSE ${v} END`;
        if (taggedNotId.has(`${t.name}.${c.name}`)) return prefixed;
        if (/_at$/.test(c.name))
          return `CASE WHEN typeof(${v}) = 'text' AND ${v} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T*' THEN strftime('%Y-%m-%dT%H:%M:%fZ', ${v}, '-' || ((s.key + ?3) * 7) || ' minutes') ELSE ${v} END`;
        return v;
      };
      // a row is copied only if every unique key of it changes in the copy
      const guards = t.uniques
        .filter((u) => !u.some((c) => taggedNotId.has(`${t.name}.${c}`) || c === rowidAlias?.name))
        .map((u) => `(${u.map((c) => (idCols.has(c) ? `t.${q(c)} IN (SELECT value FROM json_each(?1))` : "0")).join(" OR ")})`);
      plans.push({
        db: d.label,
        table: t.name,
        sql:
          `INSERT INTO ${q(t.name)} (${cols.map((c) => q(c.name)).join(", ")}) SELECT ${cols.map(expr).join(", ")} FROM ${q(t.name)} t, json_each(?2) s ` +
          `WHERE t.rowid > ${b} AND t.rowid <= ${a}${guards.length ? ` AND ${guards.join(" AND ")}` : ""}`,
      });
    }
  const CHUNK = 25;
  // one random tag per copy (8 characters of the ids' own alphabet), distinct
  const tagSet = new Set<string>();
  while (tagSet.size < copies) tagSet.add(randomToken(6).slice(0, 8));
  const tags = [...tagSet];
  for (let first = 0; first < copies; first += CHUNK) {
    const batchTags = JSON.stringify(tags.slice(first, first + CHUNK));
    // each database's copies in one batch of that database; the global one first (shards.md 4)
    for (const d of DATABASES) {
      const mine = plans.filter((p) => p.db === d.label);
      if (mine.length > 0) await d.real.batch(mine.map((p) => d.real.prepare(p.sql).bind(idJson, batchTags, first + 1)));
    }
  }
  const storedAfter = (await shard.prepare("SELECT count(*) AS n FROM envelopes").first<{ n: number }>())!.n;
  const orgs = (await shard.prepare("SELECT count(DISTINCT org_id) AS n FROM envelopes").first<{ n: number }>())!.n;
  const copied: Record<string, Record<string, number>> = {};
  for (const p of plans) (copied[p.db] ??= {})[p.table] = (await realDb(p.db).prepare(`SELECT count(*) AS n FROM ${q(p.table)}`).first<{ n: number }>())!.n;
  return {
    requested: target,
    shard: shardLabel,
    envelopes_stored: storedAfter,
    organizations_with_envelopes: orgs,
    seed_lifecycles: perTenant * tenants.length,
    seed_organizations: tenants.length,
    copies_of_each_seed: copies,
    tables_copied: copied,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
}

it("measures one envelope lifecycle against counting bindings", async () => {
  // Setup, not measured: a tenant, a 4-page contract template, 3 endpoints on the loopback receiver.
  const pages = Array.from({ length: 4 }, (_, i) => ({
    lines: Array.from({ length: 40 }, (_, l) => ({ text: `Retail installment contract, page ${i + 1}, clause ${l + 1}: the buyer agrees to pay the amount financed.`, x: 40, y: 760 - l * 18, size: 9 })),
  }));
  const { bytes } = await buildPdf(pages);

  // What one more organization stores, per database: the organization, its API key, one user with
  // its membership (the operator's calls; the shard gets the organization's anchor row).
  const beforeOrg = await allTableStats();
  const probeOrg = await newTenant({ name: "Growth Probe" });
  await adminToken(probeOrg.orgId);
  const perOrganization = statsDeltaByDb(await allTableStats(), beforeOrg, 1);

  const measured = await setUpTenant("Capacity Lender", ENDPOINTS, bytes);
  const targets = measured.targets;
  const measuredShard = (await realEnv.DB.prepare("SELECT current_shard_id AS n FROM organizations WHERE id = ?").bind(measured.orgId).first<{ n: number | null }>())?.n ?? 1;
  const shardLabel = labelOfShard(measuredShard);
  const shardDbReal = realDb(shardLabel);

  // Envelopes already stored (BENCH_CAPACITY_STORED): four organizations on the measured one's shard
  // (the measured one among them), with 3, 2, 1 and no endpoints, 3 real lifecycles each, copied in SQL
  // up to the count asked for.
  let seeding: Awaited<ReturnType<typeof seedStored>> | null = null;
  let seededInMeasuredOrg = 0;
  if (STORED > 0) {
    const others = [
      await setUpTenant("Second Lender", 2, bytes, measuredShard),
      await setUpTenant("Third Lender", 1, bytes, measuredShard),
      await setUpTenant("Fourth Lender", 0, bytes, measuredShard),
    ];
    seeding = await seedStored([measured, ...others], 3, STORED, shardLabel);
    seededInMeasuredOrg = 3;
    current = zero();
    currentDb = {};
  }
  const storedBeforeRuns = (await shardDbReal.prepare("SELECT count(*) AS n FROM envelopes").first<{ n: number }>())!.n;

  let sizeAfterWarmup: Record<string, number> = {};
  let cronReadsAfterWarmup = 0;
  let statsAfterWarmup: Record<string, TableStats> = {};
  for (let run = 0; run <= RUNS; run++) {
    const record = run > 0; // run 0 warms the isolate, the key's Durable Object and the module caches
    runIndex = run - 1;
    const steps = lifecycleSteps(measured, String(run));
    for (const step of steps) await measure(step, record);
    if (run === 0) {
      sizeAfterWarmup = await fileSizes();
      statsAfterWarmup = await allTableStats();
      runIndex = -1;
      await measure({ name: "cron tick", run: scheduled("* * * * *") }, false).catch(() => undefined);
      cronReadsAfterWarmup = current.d1_rows_read;
    }
  }
  const sizeAfterRuns = await fileSizes();
  const statsAfterRuns = await allTableStats();
  // Every lifecycle's delivery reached each receiver (at least once: duplicates are reported, not fatal).
  const receipts: number[] = [];
  for (const target of targets) {
    const expected = RUNS + 1 + seededInMeasuredOrg;
    const got = await waitForRequests(target.path, expected, 5_000);
    if (got.length < expected) throw new Error(`receiver ${target.path} got ${got.length} deliveries, expected ${expected}`);
    receipts.push(got.length);
  }

  runIndex = -1;
  const growingStatements = [...readsBySql.entries()]
    .map(([key, reads]) => ({ ...splitKey(key), first: reads[0] ?? 0, last: reads[RUNS - 1] ?? 0 }))
    .filter((r) => RUNS > 1 && r.last > r.first)
    .map((r) => ({ db: r.db, sql: r.sql.replace(/\s+/g, " ").trim().slice(0, 200), rows_read_first_run: r.first, rows_read_last_run: r.last, growth_per_stored_envelope: round3((r.last - r.first) / (RUNS - 1)) }))
    .sort((a, b) => b.growth_per_stored_envelope - a.growth_per_stored_envelope);
  // The periodic work, measured once each with the same counters (not part of the lifecycle).
  // A periodic job that throws (say, mid-change by another branch) is reported, not fatal to the lifecycle figures.
  type Periodic = Counts & { per: string; d1_rows_read_growth_per_stored_envelope?: number; statements?: unknown; by_database?: unknown };
  const periodic: Record<string, Periodic | { error: string }> = {};
  const attempt = async (label: string, fn: () => Promise<void>) => {
    try {
      await fn();
      return true;
    } catch (err) {
      periodic[label] = { error: String(err).slice(0, 300) };
      return false;
    }
  };
  const tickLabel = "cron tick (every minute: per shard expiry, relay, sweep, integrity batch, email retry, attempt prune; global idempotency prune), nothing due";
  if (await attempt(tickLabel, () => measure({ name: "cron tick", run: scheduled("* * * * *") }, false))) periodic[tickLabel] = {
      ...current,
      per: "tick",
      d1_rows_read_growth_per_stored_envelope: round3((current.d1_rows_read - cronReadsAfterWarmup) / RUNS),
      by_database: byDatabase(currentDb),
      shards_ticked: DATABASES.filter((d) => d.shard !== null).length || 1,
      statements: statementList(),
    } as Periodic;
  const beforeSweep = await allTableStats();
  const sweepLabel = "integrity sweep, per vaulted document re-hashed (weekly)";
  const swept = await attempt(sweepLabel, () => measure({ name: "weekly integrity sweep", run: scheduled(integritySweep.INTEGRITY_SWEEP_CRON ?? "0 3 * * 0") }, false));
  const sweepStats = await allTableStats();
  const checked = swept ? DATABASES.reduce((n, d) => n + (sweepStats[d.label]!.vault_integrity_checks?.rows ?? 0) - (beforeSweep[d.label]!.vault_integrity_checks?.rows ?? 0), 0) : 0;
  const sweepCounts = { ...current };
  const sweepDb = { ...currentDb };
  if (checked > 0) {
    periodic[sweepLabel] = {
      ...(Object.fromEntries(Object.entries(sweepCounts).map(([k, v]) => [k, round3(v / checked)])) as Counts),
      per: `document (${checked} re-hashed in one batch)`,
      by_database: byDatabase(sweepDb, checked),
      statements: statementList(),
    };
  }

  // Global growth per request: one create with an Idempotency-Key against the unkeyed creates' mean
  // (the record the middleware claims and completes on `DB`; src/jobs/prune-idempotency.ts deletes it
  // after 24 h). Measured once, after everything else (its envelope stays a draft).
  const createStep = "create: POST /partner/envelopes (from template)";
  const beforeKeyed = await allTableStats();
  await measure(
    {
      name: "keyed create",
      run: async () =>
        void (await request("POST", "/api/v2/partner/envelopes", {
          key: measured.key,
          idempotencyKey: `capacity-${crypto.randomUUID()}`,
          body: { template_id: measured.templateId, envelope_name: "Contract keyed", customer_email: "buyer-keyed@example.com", customer_name: "Buyer keyed" },
        })),
    },
    false,
  );
  const keyedDb = byDatabase(currentDb);
  const unkeyedDb = byDatabase(dbTotals.get(createStep) ?? {}, RUNS);
  const keyedGlobalStored = statsDeltaByDb(await allTableStats(), beforeKeyed, 1).global!;
  const perKeyedPost = {
    what: "one POST /partner/envelopes with an Idempotency-Key, against the mean unkeyed create: the global database's extra work and what it keeps (one idempotency_keys row, deleted after 24 h by the minute's prune-idempotency)",
    global_extra: Object.fromEntries((Object.keys(zeroDb()) as (keyof DbCounts)[]).map((k) => [k, round3(keyedDb.global[k] - unkeyedDb.global[k])])) as DbCounts,
    global_keyed: keyedDb.global,
    global_unkeyed: unkeyedDb.global,
    global_stored: keyedGlobalStored,
  };

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
  const steps = [...totals.entries()].map(([name, c]) => ({
    name,
    ...perLifecycle(c),
    d1_rows_read_growth_per_stored_envelope: slope(readsByRun.get(name) ?? []),
    global_rows_read_growth_per_stored_envelope: slope(globalReadsByRun.get(name) ?? []),
    by_database: byDatabase(dbTotals.get(name) ?? {}, RUNS),
  }));
  const lifecycle = zero();
  for (const s of steps.slice(1)) for (const k of Object.keys(lifecycle) as (keyof Counts)[]) lifecycle[k] += s[k];
  const growth = round3(steps.slice(1).reduce((a, s) => a + s.d1_rows_read_growth_per_stored_envelope, 0));
  for (const k of Object.keys(lifecycle) as (keyof Counts)[]) lifecycle[k] = round3(lifecycle[k]);
  const lifecycleDb: Record<string, DbCounts> = {};
  for (const name of [...totals.keys()].slice(1)) sumDb(lifecycleDb, dbTotals.get(name) ?? {});
  const storedPerEnvelope = statsDeltaByDb(statsAfterRuns, statsAfterWarmup, RUNS);
  const databases = Object.fromEntries(
    DATABASES.map((d) => [
      d.label,
      {
        binding: d.binding,
        file_bytes_per_envelope: Math.round(((sizeAfterRuns[d.label] ?? 0) - (sizeAfterWarmup[d.label] ?? 0)) / RUNS),
        file_bytes_after_runs: sizeAfterRuns[d.label] ?? 0,
        stored_per_envelope: storedPerEnvelope[d.label],
        per_organization: perOrganization[d.label],
      },
    ]),
  );
  const shardBytes = databases[shardLabel]!.file_bytes_per_envelope;
  const limits = (integritySweep as { DEFAULT_SWEEP_LIMITS?: { maxDocuments?: number; maxBytes?: number } }).DEFAULT_SWEEP_LIMITS;
  const result = {
    measured_at: new Date().toISOString(),
    runs: RUNS,
    lifecycle_definition:
      "create from a 4-page template -> send to 1 signer -> signing page, state, document, view -> submit (completes: stamp, certificate page, PAdES seal) -> vault-in-signed -> the queue consumer on every message left; 3 endpoints subscribed to envelope.completed get one delivery each, wherever it is sent from",
    // the databases this run counted: `global` is DB; each `shard <n>` is SHARD_<n>. One database: no
    // SHARD_1 bound, so shard 1 is DB and every statement is counted as `global`.
    layout: {
      separate_databases: SEPARATE,
      databases: DATABASES.map((d) => ({ label: d.label, binding: d.binding })),
      shards: DATABASES.filter((d) => d.shard !== null).length || 1,
      measured_shard: measuredShard,
      measured_shard_label: shardLabel,
    },
    template_pdf_bytes: bytes.byteLength,
    webhook_receipts_per_endpoint: { expected: RUNS + 1 + seededInMeasuredOrg, received: receipts },
    envelopes_stored_before_runs: storedBeforeRuns,
    stored_seeding: seeding,
    steps,
    lifecycle,
    lifecycle_by_database: byDatabase(lifecycleDb, RUNS),
    d1_rows_read_growth_per_stored_envelope: growth,
    global_rows_read_growth_per_stored_envelope: round3(steps.slice(1).reduce((a, s) => a + s.global_rows_read_growth_per_stored_envelope, 0)),
    periodic,
    // the measured shard's file growth per envelope (the database that fills); every database's in `databases`
    d1_file_bytes_per_envelope: shardBytes,
    d1_file_bytes_per_envelope_all_databases: Object.values(databases).reduce((a, d) => a + d.file_bytes_per_envelope, 0),
    d1_stored_per_envelope: storedPerEnvelope[shardLabel]?.tables ?? {},
    databases,
    global_per_organization: perOrganization.global,
    global_per_keyed_post: perKeyedPost,
    d1_stored_per_integrity_check: checked > 0 ? Object.assign({}, ...Object.values(statsDeltaByDb(sweepStats, beforeSweep, checked)).map((d) => d.tables)) : null,
    integrity_sweep_limits: limits ? { max_documents_per_run: limits.maxDocuments ?? null, max_bytes_per_run: limits.maxBytes ?? null } : null,
    growing_statements: growingStatements,
    // every distinct statement of the measured lifecycles: its database, step, mean rows read per
    // lifecycle, and rows read in each run (compare two runs of the harness at different stored counts
    // with `node scripts/bench-capacity-compare.mjs a.json b.json`)
    statement_reads: [...readsBySql.entries()]
      .map(([key, reads]) => {
        const { db, sql } = splitKey(key);
        const byRun = Array.from({ length: RUNS }, (_, i) => reads[i] ?? 0);
        return { db, step: stepOfSql.get(key) ?? "", sql: sql.replace(/\s+/g, " ").trim().slice(0, 300), rows_read_per_lifecycle: round3(byRun.reduce((a, b) => a + b, 0) / RUNS), rows_read_by_run: byRun };
      })
      .sort((a, b) => a.step.localeCompare(b.step) || a.db.localeCompare(b.db) || b.rows_read_per_lifecycle - a.rows_read_per_lifecycle),
    full_scans: await fullScans(),
    statements_by_verb: Object.fromEntries([...statementsSeen.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40)),
  };
  await realFetch(`${probe()}/result`, { method: "POST", body: JSON.stringify(result, null, 2) });
});
