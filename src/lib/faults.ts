import { AsyncLocalStorage } from "node:async_hooks";
import type { Env } from "../env";
import { isDevelopment } from "./service-env";

/**
 * Faults on demand, development only (docs/decisions/fault-layer.md). `FAULTS` names, per binding,
 * the share of calls that fail and how:
 *
 *   FAULTS="d1.error=0.01,d1.timeout=0.005,r2.reset=0.01,queue.duplicate=0.01,fetch.error=0.02/3"
 *
 * Each entry is `<target>.<kind>=<rate>[/<limit>]`: `rate` in [0, 1] is the chance a call of that
 * target gets the fault; `limit` caps how many it gets in one invocation (one request, one queue batch,
 * one cron run), so a test can fail exactly the first write and watch the retry. Targets: `d1` (every
 * statement of every database), `d1.write` (INSERT / UPDATE / DELETE / REPLACE statements and batches
 * holding one), `d1.batch` (batches holding a write: the service's commits, not a lone statement), `r2`, `r2.write` (put, delete, multipart), `do` (Durable Object stub calls),
 * `do.storage` (the workflow objects' own storage: their run, counters and alarms; src/jobs/object-faults.ts), `queue`
 * (the producer), `fetch` (outbound HTTP). Kinds:
 *
 * - `error`: the call throws before doing anything, as the binding does when it refuses;
 * - `reset`: the call throws "Network connection lost." before doing anything;
 * - `timeout`: the call waits FAULT_TIMEOUT_MS (default 200), runs, and then throws a timeout anyway:
 *   the caller cannot know whether a write happened, as with a real timeout;
 * - `duplicate` (queue only): the message is sent twice, so the consumer sees it delivered twice.
 *
 * The layer wraps the env once where it reaches the app (src/index.ts: fetch, queue, scheduled); the
 * services never know. In production (SERVICE_ENV not "development") nothing is wrapped and every
 * request answers 503 naming the variable (middleware/refuse-faults.ts).
 */

export const FAULT_TARGETS = ["d1", "d1.write", "d1.batch", "r2", "r2.write", "do", "do.storage", "queue", "fetch"] as const;
export const FAULT_KINDS = ["error", "timeout", "reset", "duplicate"] as const;
export type FaultTarget = (typeof FAULT_TARGETS)[number];
export type FaultKind = (typeof FAULT_KINDS)[number];
type Rule = { target: FaultTarget; kind: FaultKind; rate: number; limit: number };

export type FaultPlan = { rules: Rule[]; timeoutMs: number };

/** Parses FAULTS; throws naming the first entry it cannot read (a typo must not quietly inject nothing). */
export function parseFaults(value: string, timeoutMs?: string): FaultPlan {
  const rules: Rule[] = [];
  for (const entry of value.split(",").map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z0-9.]+)\.([a-z]+)=([0-9.]+)(?:\/([0-9]+))?$/.exec(entry);
    const target = m?.[1] as FaultTarget;
    const kind = m?.[2] as FaultKind;
    const rate = Number(m?.[3]);
    if (!m || !FAULT_TARGETS.includes(target) || !FAULT_KINDS.includes(kind) || !(rate >= 0 && rate <= 1)) {
      throw new Error(`FAULTS: cannot read "${entry}" (expected <${FAULT_TARGETS.join("|")}>.<${FAULT_KINDS.join("|")}>=<0..1>[/<limit>])`);
    }
    if (kind === "duplicate" && target !== "queue") throw new Error(`FAULTS: "${entry}": duplicate applies to the queue only`);
    rules.push({ target, kind, rate, limit: m[4] === undefined ? Infinity : Number(m[4]) });
  }
  const ms = Number(timeoutMs ?? "");
  return { rules, timeoutMs: Number.isFinite(ms) && ms >= 0 && timeoutMs !== "" && timeoutMs !== undefined ? ms : 200 };
}

/** Faults injected since this isolate started (or since the last reset), by `<target>.<kind>`: what GET /dev/faults reports. */
const injected = new Map<string, number>();
/** Development switch of the soak (POST /dev/faults): paused, the plan is read but nothing is injected. */
let paused = false;

export function faultStats(): { paused: boolean; injected: Record<string, number> } {
  return { paused, injected: Object.fromEntries([...injected].sort()) };
}
export function setFaultsPaused(value: boolean): void {
  paused = value;
}
export function resetFaultStats(): void {
  injected.clear();
}

/** One invocation's dice: the plan, and how many of each rule's faults this invocation has had. */
class Injector {
  private readonly used = new Map<Rule, number>();
  constructor(readonly plan: FaultPlan) {}

  /** The fault this call gets, if any: the first rule of its targets that rolls under its rate. */
  roll(targets: readonly FaultTarget[], kinds: readonly FaultKind[] = ["error", "timeout", "reset"]): FaultKind | null {
    if (paused) return null;
    for (const rule of this.plan.rules) {
      if (!targets.includes(rule.target) || !kinds.includes(rule.kind)) continue;
      const used = this.used.get(rule) ?? 0;
      if (used >= rule.limit || Math.random() >= rule.rate) continue;
      this.used.set(rule, used + 1);
      const key = `${rule.target}.${rule.kind}`;
      injected.set(key, (injected.get(key) ?? 0) + 1);
      return rule.kind;
    }
    return null;
  }

  /** Runs `call` under the fault `targets` roll: thrown before it (error, reset) or after it (timeout). */
  async around<T>(targets: readonly [FaultTarget, ...FaultTarget[]], what: string, call: () => Promise<T>): Promise<T> {
    const kind = this.roll(targets);
    if (kind === "error") throw faultError(targets[0], what, "error");
    if (kind === "reset") throw new Error("Network connection lost.", { cause: FAULT_CAUSE });
    if (kind === "timeout") {
      await new Promise((r) => setTimeout(r, this.plan.timeoutMs));
      await call().catch(() => undefined);
      throw faultError(targets[0], what, "timeout");
    }
    return call();
  }
}

/** Marks an error as injected (the log says so); the service must treat it as it treats the real one. */
export const FAULT_CAUSE = "injected by FAULTS (development only)";

/** The messages the real bindings throw, so the service's handling is the one production exercises. */
function faultError(target: FaultTarget, what: string, kind: "error" | "timeout"): Error {
  const base = target.split(".")[0];
  const message =
    base === "d1"
      ? kind === "error"
        ? "D1_ERROR: Internal error while starting up D1 storage caused object to be reset."
        : "D1_ERROR: D1 DB storage operation exceeded timeout which caused object to be reset."
      : base === "r2"
        ? kind === "error"
          ? `${what}: We encountered an internal error. Please try again. (10001)`
          : `${what}: The operation timed out. (10058)`
        : base === "do"
          ? kind === "error"
            ? "Durable Object reset because its code was updated."
            : "Durable Object storage operation exceeded timeout which caused object to be reset."
          : base === "queue"
            ? kind === "error"
              ? "Queue send failed: internal error"
              : "Queue send failed: timed out"
            : kind === "error"
              ? "internal error"
              : "The operation was aborted due to timeout";
  return new Error(message, { cause: FAULT_CAUSE });
}

const WRITE_SQL = /^\s*(insert|update|delete|replace|with\b[\s\S]*\b(insert|update|delete))/i;

/** A wrapped statement's own statement and SQL: D1's batch takes only its own statements. */
const statements = new WeakMap<object, { raw: D1PreparedStatement; sql: string }>();

function wrapStatement(stmt: D1PreparedStatement, sql: string, inj: Injector): D1PreparedStatement {
  const targets: [FaultTarget, ...FaultTarget[]] = WRITE_SQL.test(sql) ? ["d1", "d1.write"] : ["d1"];
  const proxy = new Proxy(stmt, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "bind") return (...args: unknown[]) => wrapStatement(value.apply(target, args), sql, inj);
      if (prop === "first" || prop === "all" || prop === "run" || prop === "raw")
        return (...args: unknown[]) => inj.around(targets, `D1 ${String(prop)}`, () => value.apply(target, args));
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  statements.set(proxy, { raw: stmt, sql });
  return proxy;
}

function wrapD1(db: D1Database, inj: Injector): D1Database {
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "prepare")
        return (sql: string) => wrapStatement(value.call(target, sql) as D1PreparedStatement, sql, inj);
      if (prop === "batch")
        return (list: D1PreparedStatement[]) => {
          const writes = list.some((s) => WRITE_SQL.test(statements.get(s)?.sql ?? ""));
          const unwrapped = list.map((s) => statements.get(s)?.raw ?? s);
          return inj.around(writes ? ["d1", "d1.write", "d1.batch"] : ["d1"], "D1 batch", () => value.call(target, unwrapped));
        };
      if (prop === "exec") return (sql: string) => inj.around(["d1", "d1.write"], "D1 exec", () => value.call(target, sql));
      if (prop === "withSession") return (...args: unknown[]) => wrapD1(value.apply(target, args), inj);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function wrapR2(bucket: R2Bucket, inj: Injector): R2Bucket {
  const writes = new Set<PropertyKey>(["put", "delete", "createMultipartUpload", "resumeMultipartUpload"]);
  return new Proxy(bucket, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      const targets: [FaultTarget, ...FaultTarget[]] = writes.has(prop) ? ["r2", "r2.write"] : ["r2"];
      // a multipart upload handle is returned synchronously by resume…: its calls are not faulted
      if (prop === "resumeMultipartUpload") return value.bind(target);
      return (...args: unknown[]) => inj.around(targets, `R2 ${String(prop)}`, () => value.apply(target, args));
    },
  });
}

/** Properties of a stub that are not calls to the object (reading them must not fault or turn into RPC). */
const STUB_FIELDS = new Set<PropertyKey>(["id", "name", "then", "toJSON", "constructor"]);

function wrapStub<T extends object>(stub: T, inj: Injector): T {
  return new Proxy(stub, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof prop === "symbol" || STUB_FIELDS.has(prop) || typeof value !== "function") return value;
      return (...args: unknown[]) => inj.around(["do"], `Durable Object ${String(prop)}`, () => Promise.resolve((target as Record<string, (...a: unknown[]) => unknown>)[prop]!(...args)));
    },
  });
}

function wrapNamespace<T extends object>(ns: T, inj: Injector): T {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "getByName") return (...args: unknown[]) => wrapStub(value.apply(target, args), inj);
      return value.bind(target);
    },
  });
}

function wrapQueue<T>(queue: Queue<T>, inj: Injector): Queue<T> {
  return new Proxy(queue, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "send" && prop !== "sendBatch") return typeof value === "function" ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        await inj.around(["queue"], `Queue ${prop}`, () => value.apply(target, args));
        // delivered twice: the same message sent again (the consumer must count it once per event id)
        if (inj.roll(["queue"], ["duplicate"])) await value.apply(target, args);
      };
    },
  });
}

/**
 * A Durable Object's own storage as the workflow objects drive their run from it: its `kv` reads and writes
 * and its alarm calls roll the current invocation's `do.storage` rules (none outside an invocation run
 * with a plan). `error` and `reset` throw before the call; `timeout` makes the call and then throws, as a
 * storage operation that timed out after it landed.
 */
export function wrapObjectStorage(storage: DurableObjectStorage): DurableObjectStorage {
  const sync = <T>(what: string, call: () => T): T => {
    const kind = invocation.getStore()?.roll(["do.storage"]);
    if (kind === "error" || kind === "reset") throw faultError("do.storage", what, "error");
    const result = call();
    if (kind === "timeout") throw faultError("do.storage", what, "timeout");
    return result;
  };
  const kv = new Proxy(storage.kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => sync(`storage.kv.${String(prop)}`, () => value.apply(target, args));
    },
  });
  const alarms = new Set<PropertyKey>(["setAlarm", "getAlarm", "deleteAlarm"]);
  return new Proxy(storage, {
    get(target, prop) {
      if (prop === "kv") return kv;
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (!alarms.has(prop)) return value.bind(target);
      return (...args: unknown[]) => {
        const inj = invocation.getStore();
        return inj ? inj.around(["do.storage"], `storage.${String(prop)}`, () => value.apply(target, args)) : value.apply(target, args);
      };
    },
  });
}

const invocation = new AsyncLocalStorage<Injector>();
let fetchWrapped = false;

/** Outbound fetch is a global, not a binding: wrapped once, it faults only inside an invocation run with a plan. */
function wrapGlobalFetch(): void {
  if (fetchWrapped) return;
  fetchWrapped = true;
  const original = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const inj = invocation.getStore();
    if (!inj) return original(input, init);
    const kind = inj.roll(["fetch"]);
    if (kind === "error") return Promise.reject(new TypeError("fetch failed", { cause: FAULT_CAUSE }));
    if (kind === "reset") return Promise.reject(new Error("Network connection lost.", { cause: FAULT_CAUSE }));
    if (kind === "timeout")
      return new Promise((_, reject) => setTimeout(() => reject(new DOMException("The operation was aborted due to timeout", "TimeoutError")), inj.plan.timeoutMs));
    return original(input, init);
  }) as typeof fetch;
}

/** The env with every binding the plan names wrapped. Unnamed bindings are handed through untouched. */
function wrapEnv(env: Env, inj: Injector): Env {
  const named = new Set(inj.plan.rules.map((r) => r.target.split(".")[0]));
  const out: Record<string, unknown> = { ...env };
  for (const [key, value] of Object.entries(env)) {
    if (named.has("d1") && (key === "DB" || /^SHARD_\d+$/.test(key)) && value) out[key] = wrapD1(value as D1Database, inj);
    else if (named.has("r2") && key === "DOCS") out[key] = wrapR2(value as R2Bucket, inj);
    else if (named.has("do") && (key === "RATE_LIMITER" || key === "BULK_BATCH") && value) out[key] = wrapNamespace(value as object, inj);
    else if (named.has("queue") && key === "WEBHOOK_QUEUE") out[key] = wrapQueue(value as Queue<unknown>, inj);
  }
  if (named.has("fetch")) wrapGlobalFetch();
  return out as Env;
}

const plans = new Map<string, FaultPlan>();

/**
 * Runs one invocation (a request, a queue batch, a cron run) with its env: wrapped by the FAULTS plan
 * in development, untouched otherwise. In production a set FAULTS injects nothing (the request
 * surface refuses it with a 503; a queue or cron run logs it).
 */
export function withFaults<T>(env: Env, run: (env: Env) => T): T {
  const value = env.FAULTS?.trim();
  if (!value || !isDevelopment(env)) {
    if (value) console.error(JSON.stringify({ level: "error", message: "FAULTS is set outside development: ignored (requests answer 503)" }));
    return run(env);
  }
  let plan = plans.get(value);
  if (!plan) {
    try {
      plan = parseFaults(value, env.FAULT_TIMEOUT_MS);
    } catch {
      return run(env); // unreadable: nothing injected; every request answers 503 saying why (middleware/refuse-faults.ts)
    }
    plans.set(value, plan);
  }
  const inj = new Injector(plan);
  return invocation.run(inj, () => run(wrapEnv(env, inj)));
}
