import { describe, expect, it } from "vitest";
import { call, newTenant, operator } from "../../helpers/api";
import { orgShardDb } from "../../helpers/shards";

const list = (key: string) => call("GET", "/partner/envelopes", { key });

describe("operator: API key lifecycle", () => {
  it("shows the raw key once, stores only its hash, and the key authenticates", async () => {
    const org = await operator("POST", "/orgs", { name: "Keys Inc" });
    const created = await operator("POST", `/orgs/${org.body.data.org_id}/api-keys`, { scopes: ["envelopes:read"], name: "portal" });
    expect(created.status).toBe(201);
    expect(created.body.data.api_key).toMatch(/^lk_[0-9a-f]{40}$/);
    expect(created.body.data.key_prefix).toBe(created.body.data.api_key.slice(0, 7));
    const shown = await operator("GET", `/api-keys/${created.body.data.key_id}`);
    expect(shown.status).toBe(200);
    expect(JSON.stringify(shown.body)).not.toContain(created.body.data.api_key);
    expect((await list(created.body.data.api_key)).status).toBe(200);
  });

  it("rotation issues a new key and refuses the old one on the very next request", async () => {
    const t = await newTenant();
    expect((await list(t.key)).status).toBe(200);
    const rotated = await operator("POST", `/api-keys/${t.keyId}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.key_id).toBe(t.keyId);
    expect(rotated.body.data.api_key).not.toBe(t.key);
    const old = await list(t.key);
    expect(old.status).toBe(401);
    expect(old.body.error).toMatch(/API key/);
    expect((await list(rotated.body.data.api_key)).status).toBe(200);
  });

  it("re-scoping keeps the same key working with the new scopes", async () => {
    const t = await newTenant({ scopes: ["envelopes:read"] });
    expect((await call("POST", "/partner/envelopes", { key: t.key, body: {} })).status).toBe(403);
    const res = await operator("PATCH", `/api-keys/${t.keyId}`, { scopes: ["envelopes:read", "envelopes:write"] });
    expect(res.status).toBe(200);
    expect(res.body.data.scopes).toEqual(["envelopes:read", "envelopes:write"]);
    expect((await call("POST", "/partner/envelopes", { key: t.key, body: {} })).status).toBe(422);
    await operator("PATCH", `/api-keys/${t.keyId}`, { scopes: ["envelopes:write"] });
    const read = await list(t.key);
    expect(read.status).toBe(403);
    expect(read.body.error).toBe("Missing required scope: envelopes:read");
  });

  it("re-limiting keeps the key working and applies the new limit at once", async () => {
    const t = await newTenant({ rpm: 2 });
    await list(t.key);
    await list(t.key);
    expect((await list(t.key)).status).toBe(429);
    await operator("PATCH", `/api-keys/${t.keyId}`, { rate_limit_rpm: 5 });
    const res = await list(t.key);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-RateLimit-Limit")).toBe("5");
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("2");
  });

  it("deactivation rejects the key on the next request; reactivation restores it", async () => {
    const t = await newTenant();
    expect((await list(t.key)).status).toBe(200);
    expect((await operator("PATCH", `/api-keys/${t.keyId}`, { active: false })).body.data.active).toBe(false);
    const res = await list(t.key);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/API key is required/);
    await operator("PATCH", `/api-keys/${t.keyId}`, { active: true });
    expect((await list(t.key)).status).toBe(200);
  });

  it("refuses unknown scopes and out-of-range limits with 422", async () => {
    const t = await newTenant();
    const bad = await operator("POST", `/orgs/${t.orgId}/api-keys`, { scopes: ["envelopes:admin"], rate_limit_rpm: 0 });
    expect(bad.status).toBe(422);
    expect(bad.body.details.map((d: { path: string[] }) => d.path.join("."))).toEqual(expect.arrayContaining(["scopes.0", "rate_limit_rpm"]));
  });

  it("answers 404 for unknown keys and organizations", async () => {
    expect((await operator("POST", "/api-keys/key_doesnotexist/rotate")).status).toBe(404);
    expect((await operator("POST", "/orgs/org_doesnotexist/api-keys", { scopes: ["envelopes:read"] })).status).toBe(404);
  });
});

describe("operator API authentication", () => {
  it("refuses calls without the operator token", async () => {
    const none = await call("POST", "/operator/orgs", { body: { name: "x" } });
    expect(none.status).toBe(401);
    const wrong = await call("POST", "/operator/orgs", { bearer: "not-the-token", body: { name: "x" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatch(/Operator token required/);
  });

  it("refuses a partner API key on operator routes", async () => {
    const t = await newTenant();
    const res = await call("POST", "/operator/orgs", { key: t.key, body: { name: "x" } });
    expect(res.status).toBe(401);
  });
});

describe("org-level audit under contention", () => {
  it("commits concurrent org changes with their audit entries, never answering 500", async () => {
    const t = await newTenant();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => operator("POST", `/orgs/${t.orgId}/customers`, { name: `Customer ${i}`, email: `c${i}@example.com` })),
    );
    for (const r of results) expect([201, 409]).toContain(r.status);
    const created = results.filter((r) => r.status === 201).length;
    expect(created).toBeGreaterThan(0);
    const { env } = await import("cloudflare:test");
    const { verifyChain } = await import("../../../src/services/audit/verify-chain");
    const chain = await verifyChain(env.DB, t.orgId);
    expect(chain.verified).toBe(true);
    const customers = await (await orgShardDb(t.orgId)).prepare("SELECT COUNT(*) AS n FROM customers WHERE org_id = ?").bind(t.orgId).first<{ n: number }>();
    expect(customers!.n).toBe(created);
  });
});
