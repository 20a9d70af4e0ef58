import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { rateLimiterFor } from "../../durable-objects/rate-limiter";
import { sha256Hex } from "../../src/lib/crypto";
import { shardOf } from "../../src/lib/shards";
import { call, createEnvelope, newTenant, operator } from "../helpers/api";
import { globalDb, orgShardNumber } from "../helpers/shards";

/** Makes the key's limiter hold its cached record as if read `ms` ago. */
async function ageRecord(rawKey: string, ms: number) {
  const stub = rateLimiterFor(env, await sha256Hex(rawKey));
  await runInDurableObject(stub, (instance) => {
    (instance as unknown as { recordAt: number }).recordAt -= ms;
  });
}

/** A change written to D1 whose push to the key's limiter was lost: the row changes, nothing is pushed. */
const changeWithoutPush = (sql: string, ...params: unknown[]) => globalDb.prepare(sql).bind(...params).run();

describe("the key limiter reloads its record from D1 at most a minute after it was read", () => {
  it("a scope change whose push was lost is still served from the cache, and applies once the record is a minute old", async () => {
    const t = await newTenant({ scopes: ["envelopes:read", "envelopes:write"] });
    expect((await call("GET", "/partner/envelopes", { key: t.key })).status).toBe(200);
    await changeWithoutPush("UPDATE api_keys SET scopes = ?, updated_at = ? WHERE id = ?", JSON.stringify(["envelopes:write"]), new Date().toISOString(), t.keyId);
    await ageRecord(t.key, 30_000);
    expect((await call("GET", "/partner/envelopes", { key: t.key })).status).toBe(200);
    await ageRecord(t.key, 31_000);
    expect((await call("GET", "/partner/envelopes", { key: t.key })).status).toBe(403);
  });

  it("a key removed from D1 under this hash (a rotation whose push was lost) stops authenticating within a minute", async () => {
    const t = await newTenant();
    expect((await call("GET", "/partner/envelopes", { key: t.key })).status).toBe(200);
    await changeWithoutPush("UPDATE api_keys SET key_hash = ?, updated_at = ? WHERE id = ?", "0".repeat(64), new Date().toISOString(), t.keyId);
    await ageRecord(t.key, 61_000);
    expect((await call("GET", "/partner/envelopes", { key: t.key })).status).toBe(401);
  });

  it("a shard move whose push was lost sends the key's creates to the new shard within a minute", async () => {
    expect((await operator("PATCH", "/shards/2", { state: "open" })).status).toBe(200);
    const t = await newTenant();
    const from = await orgShardNumber(t.orgId);
    const to = from === 1 ? 2 : 1;
    expect(shardOf((await createEnvelope(t.key)).envelope_id)).toBe(from);
    const at = new Date().toISOString();
    await globalDb.batch([
      globalDb.prepare("INSERT OR IGNORE INTO org_shards (org_id, shard_id, reason, first_at) VALUES (?, ?, 'placed', ?)").bind(t.orgId, to, at),
      globalDb.prepare("UPDATE organizations SET current_shard_id = ? WHERE id = ?").bind(to, t.orgId),
      globalDb.prepare("UPDATE api_keys SET updated_at = ? WHERE org_id = ?").bind(at, t.orgId),
    ]);
    await (env as unknown as Record<string, D1Database>)[`SHARD_${to}`]!
      .prepare("INSERT OR IGNORE INTO organizations (id, name, created_at, updated_at) VALUES (?, '', ?, ?)")
      .bind(t.orgId, at, at)
      .run();
    expect(shardOf((await createEnvelope(t.key)).envelope_id)).toBe(from);
    await ageRecord(t.key, 61_000);
    expect(shardOf((await createEnvelope(t.key)).envelope_id)).toBe(to);
  });
});
