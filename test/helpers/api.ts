import { expect } from "vitest";
import { ApiError } from "../../src/lib/errors";
import { createExecutionContext, SELF, waitOnExecutionContext } from "cloudflare:test";
import { app } from "../../src/app";
import type { Env } from "../../src/env";

export const BASE = "http://localhost/api/v2";
export const OPERATOR_TOKEN = "test-operator-token";

export type ApiResponse<T = any> = { status: number; headers: Headers; body: T };

type CallOptions = { key?: string; bearer?: string; body?: unknown; raw?: string; headers?: Record<string, string> };

/** The request a partner (or the operator, or a console user) would send: `path` under the API base unless a whole URL. */
function apiRequest(method: string, path: string, opts: CallOptions): Request {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers["X-API-Key"] = opts.key;
  if (opts.bearer) headers.Authorization = `Bearer ${opts.bearer}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["Content-Type"] ??= "application/json";
  }
  return new Request(path.startsWith("http") ? path : BASE + path, { method, headers, body });
}

async function apiResponse<T>(res: Response): Promise<ApiResponse<T>> {
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** A request to the Worker, as a partner (or the operator, or a console user) would send it. */
export async function call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
  return apiResponse<T>(await SELF.fetch(apiRequest(method, path, opts)));
}

/**
 * The same request answered by the app under other `bindings`: a deployment configured otherwise than
 * the test pool (production's refusals, a seal with a timestamp authority, a missing secret).
 */
export async function callWith<T = any>(bindings: Env, method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
  const ctx = createExecutionContext();
  const res = await app.fetch(apiRequest(method, path, opts), bindings, ctx);
  await waitOnExecutionContext(ctx);
  return apiResponse<T>(res);
}

export const operator = <T = any>(method: string, path: string, body?: unknown) =>
  call<T>(method, `/operator${path}`, { bearer: OPERATOR_TOKEN, body: body ?? (method === "GET" ? undefined : {}) });

export const ALL_SCOPES = ["envelopes:read", "envelopes:write", "vault:read", "vault:write", "compliance:read", "esign:write", "webhooks:write"];

/** A fresh organization with one key: every test gets its own tenant, so tests never share state. */
/**
 * A fresh organization (placed as the operator API places it: alternating over the two test shards) and
 * an API key. `shard` places it on that shard, for a test whose rows must be on one (rows from before
 * sharding exist only on shard 1).
 */
export async function newTenant(opts: { scopes?: string[]; rpm?: number; name?: string; shard?: number } = {}) {
  const org = await operator("POST", "/orgs", { name: opts.name ?? "Test Lender", ...(opts.shard !== undefined ? { shard_id: opts.shard } : {}) });
  if (org.status !== 201) throw new Error(`org create failed: ${JSON.stringify(org.body)}`);
  const orgId: string = org.body.data.org_id;
  const key = await operator("POST", `/orgs/${orgId}/api-keys`, {
    scopes: opts.scopes ?? ALL_SCOPES,
    rate_limit_rpm: opts.rpm ?? 1000,
  });
  if (key.status !== 201) throw new Error(`key create failed: ${JSON.stringify(key.body)}`);
  return { orgId, keyId: key.body.data.key_id as string, key: key.body.data.api_key as string };
}

export async function newKey(orgId: string, scopes: string[], rpm = 1000) {
  const key = await operator("POST", `/orgs/${orgId}/api-keys`, { scopes, rate_limit_rpm: rpm });
  return { keyId: key.body.data.key_id as string, key: key.body.data.api_key as string };
}

let counter = 0;
export function envelopeBody(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    envelope_name: `Retail installment contract #${counter}`,
    customer_email: `buyer${counter}@example.com`,
    customer_name: `Buyer ${counter}`,
    ...overrides,
  };
}

export async function createEnvelope(key: string, overrides: Record<string, unknown> = {}) {
  const res = await call("POST", "/partner/envelopes", { key, body: envelopeBody(overrides) });
  if (res.status !== 201) throw new Error(`envelope create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { envelope_id: string; customer_id: string; status: string; [k: string]: unknown };
}

/** Reads until `check` accepts what `read` returns (work a response left to `waitUntil`), at most `timeoutMs` (a hang's limit: a loaded machine is slow). */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The ApiError a verb called directly throws (the test fails if it resolves or throws anything else). */
export async function refusal(run: Promise<unknown>): Promise<ApiError> {
  const err = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}
