import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { rateLimiterFor } from "../../durable-objects/rate-limiter";
import { sha256Hex } from "../../src/lib/crypto";
import { rotateApiKey } from "../../src/services/operator/api-keys/rotate-api-key";
import { call, newTenant, operator } from "../helpers/api";
import { jobContext } from "../helpers/context";
import { racedDb } from "../helpers/raced-db";
import type { GlobalDb } from "../../src/lib/shards";
import { orgShardNumber } from "../helpers/shards";


const listEnvelopes = (key: string) => call("GET", "/partner/envelopes", { key });

describe("API key changes cannot be lost in the limiter's cache", () => {
  it("a deactivated key stays refused even when an older record of it reaches the limiter late", async () => {
    const t = await newTenant();
    expect((await listEnvelopes(t.key)).status).toBe(200);
    const before = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(t.keyId).first<{ org_id: string; scopes: string; rate_limit_rpm: number; updated_at: string }>();
    expect((await operator("PATCH", `/api-keys/${t.keyId}`, { active: false })).status).toBe(200);
    expect((await listEnvelopes(t.key)).status).toBe(401);

    // The refresh of an earlier change (the key still active) arrives after the deactivation's.
    const limiter = rateLimiterFor(env, await sha256Hex(t.key));
    await limiter.refresh({
      keyId: t.keyId,
      orgId: before!.org_id,
      scopes: JSON.parse(before!.scopes),
      rateLimitRpm: before!.rate_limit_rpm,
      active: true,
      currentShardId: await orgShardNumber(before!.org_id),
      version: before!.updated_at,
    });
    expect((await listEnvelopes(t.key)).status).toBe(401);
  });

  it("a deactivated key stays refused when a record of the same millisecond, read before the deactivation, arrives last", async () => {
    const t = await newTenant();
    expect((await listEnvelopes(t.key)).status).toBe(200);
    expect((await operator("PATCH", `/api-keys/${t.keyId}`, { active: false })).status).toBe(200);
    const after = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(t.keyId).first<{ org_id: string; scopes: string; rate_limit_rpm: number; updated_at: string }>();
    expect((await listEnvelopes(t.key)).status).toBe(401);

    // Another change (a scope change) committed in the same millisecond, its record read while the key was still active:
    // same updated_at, so the version cannot say which is later. It must not bring the key back.
    const limiter = rateLimiterFor(env, await sha256Hex(t.key));
    await limiter.refresh({
      keyId: t.keyId,
      orgId: after!.org_id,
      scopes: ["envelopes:read"],
      rateLimitRpm: after!.rate_limit_rpm,
      active: true,
      currentShardId: await orgShardNumber(after!.org_id),
      version: after!.updated_at,
    });
    expect((await listEnvelopes(t.key)).status).toBe(401);
    // and a later real reactivation still works
    expect((await operator("PATCH", `/api-keys/${t.keyId}`, { active: true })).status).toBe(200);
    expect((await listEnvelopes(t.key)).status).toBe(200);
  });

  it("of two concurrent rotations one is refused, and only the raw key D1 holds authenticates", async () => {
    const t = await newTenant();
    let winner: { api_key: string } | undefined;
    const ctx = { ...jobContext() };
    ctx.global = racedDb(env.DB, async () => (winner = await rotateApiKey(jobContext(), { keyId: t.keyId }))) as GlobalDb;
    const loser = await rotateApiKey(ctx, { keyId: t.keyId }).then(
      (r) => ({ ok: true as const, key: r.api_key }),
      (err: { status?: number }) => ({ ok: false as const, status: err.status }),
    );
    expect(winner).toBeDefined();
    expect(loser).toEqual({ ok: false, status: 409 });
    expect((await listEnvelopes(winner!.api_key)).status).toBe(200);
    expect((await listEnvelopes(t.key)).status).toBe(401);
    const chain = await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = 'api_key.rotated'").bind(t.orgId).first<{ n: number }>();
    expect(chain!.n).toBe(1);
  });
});
