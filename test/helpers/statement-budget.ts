import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { createContext, type Publisher, type RequestContext } from "../../src/lib/context";
import { BASE, type ApiResponse } from "./api";
import { interceptDb } from "./db-proxy";
import { withEveryDb } from "./shards";

/**
 * D1 runs at most 1,000 statements per Worker invocation (each statement of a batch counts; so does
 * each one `exec` runs). Past it the invocation fails, so a request path whose statement count grows
 * with its input (clients, signers, fields, endpoints) works in a small test and fails in production.
 */
export const D1_STATEMENTS_PER_INVOCATION = 1000;

export type StatementTally = { statements: number; sql: string[] };

/**
 * A D1 binding that counts what it runs: one per run/first/all/raw, one per statement of a batch, one
 * per statement of an exec. `tally.sql` keeps each statement's text, so a failing budget names the
 * statements that repeat.
 */
export function countingDb(db: D1Database, tally: StatementTally): D1Database {
  return interceptDb(db, (sql) => {
    tally.statements += 1;
    tally.sql.push(sql);
  });
}

/** The statements that ran more than once, most repeated first: what to look at when a budget fails. */
export function repeatedStatements(tally: StatementTally, top = 5): string {
  const counts = new Map<string, number>();
  for (const sql of tally.sql) {
    const key = sql.replace(/\s+/g, " ").slice(0, 160);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()]
    .filter(([, n]) => n > 1)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([sql, n]) => `${n}x ${sql}`)
    .join("\n");
}

export type CountedResponse<T = any> = ApiResponse<T> & { statements: number; tally: StatementTally };

/**
 * One request through the Worker's own fetch handler, as one invocation: its D1 bindings (global and shards) count every
 * statement the request runs, including the work it leaves to `waitUntil` (webhook fan-out and first
 * attempts, auto-vault), which the runtime bills to the same invocation. Durable Objects the request
 * calls run in invocations of their own and are not counted here. `bindings` replaces others (a
 * stand-in Durable Object namespace, say).
 */
export async function countedCall<T = any>(
  method: string,
  path: string,
  opts: { key?: string; bearer?: string; body?: unknown; form?: FormData; headers?: Record<string, string>; bindings?: Partial<Env> } = {},
): Promise<CountedResponse<T>> {
  const tally: StatementTally = { statements: 0, sql: [] };
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers["X-API-Key"] = opts.key;
  if (opts.bearer) headers.Authorization = `Bearer ${opts.bearer}`;
  let body: BodyInit | undefined = opts.form;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["Content-Type"] ??= "application/json";
  }
  const bindings = withEveryDb({ ...(env as Env), ...opts.bindings } as Env, (db) => countingDb(db, tally));
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(path.startsWith("http") ? path : BASE + path, { method, headers, body }), bindings, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed as T, statements: tally.statements, tally };
}

/**
 * A system context (a job's, a Durable Object's) whose D1 binding counts into `tally`, for running the
 * work of one invocation that is not a request (a bulk chunk, a queue batch) under the same budget.
 * `settled` waits for what it left to `waitUntil`.
 */
export function countedContext(tally: StatementTally, opts: { bindings?: Partial<Env>; publisher?: Publisher } = {}): { ctx: RequestContext; settled: () => Promise<void> } {
  const pending: Promise<unknown>[] = [];
  const counted = withEveryDb({ ...(env as Env), ...opts.bindings } as Env, (db) => countingDb(db, tally));
  const ctx = createContext(counted, (p) => void pending.push(p), { requestId: `budget_${crypto.randomUUID()}`, publisher: opts.publisher });
  const settled = async () => {
    // what waits on waitUntil may itself hand more to it
    while (pending.length > 0) await Promise.allSettled(pending.splice(0));
  };
  return { ctx, settled };
}
