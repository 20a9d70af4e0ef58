import { createMiddleware } from "hono/factory";
import { rateLimiterFor } from "../../durable-objects/rate-limiter";
import { onCurrentShard } from "../lib/context";
import { sha256Hex } from "../lib/crypto";
import { ApiError, forbidden, unauthorized } from "../lib/errors";
import type { AppEnv } from "../lib/hono";
import { API_KEY_PATTERN } from "../lib/ids";
import type { Scope } from "../lib/scopes";
import { FLOOD_WINDOW_MS, floodRefusal } from "./client-throttle";

export { SCOPES, type Scope } from "../lib/scopes";

const MISSING = "API key required: send a valid, active partner API key in the X-API-Key header";
const INVALID = "Invalid API key: a valid, active partner API key is required in the X-API-Key header";

/**
 * Addresses that sent more unknown (well-formed, random) keys than the per-address flood limit
 * allows, as this isolate saw it, with when their block ends. Every unknown key costs a RateLimiter
 * object and a D1 read, so a flooding address is refused here, before the object, for the rest of
 * the window. Only unknown keys count: a partner's own traffic is limited per key, by its object.
 */
const floodedAddresses = new Map<string, number>();

/**
 * Keys (by hash) this isolate saw refused with 429, with when their window resets: a speculative
 * read (middleware/speculative-read.ts) is not started for them, so a key over its limit costs no D1
 * read past its first refusal here.
 */
const limitedKeys = new Map<string, number>();

function blockUntil(map: Map<string, number>, key: string, until: number) {
  const now = Date.now();
  if (map.size >= 10_000) for (const [k, end] of map) if (end <= now) map.delete(k);
  map.set(key, until);
}

/**
 * X-API-Key -> the key's RateLimiter object, which authenticates and counts in one round trip.
 * The rate-limit headers go on every response from here on, errors included.
 */
export const partnerAuth = createMiddleware<AppEnv>(async (c, next) => {
  const raw = c.req.header("x-api-key");
  if (!raw) throw unauthorized(MISSING);
  if (!API_KEY_PATTERN.test(raw)) throw unauthorized(INVALID);
  const address = c.req.header("cf-connecting-ip");
  if (address && (floodedAddresses.get(address) ?? 0) > Date.now()) throw floodRefusal(c);
  const keyHash = await sha256Hex(raw);
  // A route's read may run beside the limiter's round trip; its answer is used only once the key is admitted.
  const speculation = c.var.speculativeRead;
  if (speculation && (limitedKeys.get(keyHash) ?? 0) <= Date.now()) speculation.start();
  const admission = await rateLimiterFor(c.env, keyHash).admit(keyHash);
  if (admission.outcome === "invalid") {
    if (address && !(await c.env.SIGNER_LIMITER.limit({ key: `unknown-api-key:${address}` })).success) {
      blockUntil(floodedAddresses, address, Date.now() + FLOOD_WINDOW_MS);
      throw floodRefusal(c);
    }
    throw unauthorized(INVALID);
  }

  c.header("X-RateLimit-Limit", String(admission.limit));
  c.header("X-RateLimit-Remaining", String(admission.remaining));
  c.header("X-RateLimit-Reset", String(admission.reset));
  if (admission.outcome === "limited") {
    const retryAfter = admission.retryAfter;
    blockUntil(limitedKeys, keyHash, Date.now() + retryAfter * 1000);
    c.header("Retry-After", String(retryAfter));
    throw new ApiError(429, `Rate limit exceeded: ${admission.limit} requests per minute for this API key`, {
      retry_after: retryAfter,
      limit: admission.limit,
    });
  }
  const { keyId, orgId, scopes, currentShardId } = admission.key;
  c.set("apiKey", { keyId, orgId, scopes });
  c.set("ctx", {
    ...onCurrentShard(c.var.ctx, currentShardId ?? 1),
    orgId,
    actor: { type: "api_key", id: keyId, ip: address ?? null, userAgent: c.req.header("user-agent")?.slice(0, 300) ?? null },
  });
  await next();
});

/**
 * The key must hold the scope (or one of the scopes) the route declares. Routes do not call this
 * themselves: `partnerRoute(scope, route)` (routes/partner/common.ts) adds it from the declaration.
 */
export function requireScope(scope: Scope | readonly Scope[]) {
  const anyOf: readonly Scope[] = typeof scope === "string" ? [scope] : scope;
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!anyOf.some((s) => c.var.apiKey.scopes.includes(s))) throw forbidden(`Missing required scope: ${anyOf.join(" or ")}`);
    await next();
  });
}
