import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { call, createEnvelope, newTenant, operator } from "../../helpers/api";
import { shardDbOf } from "../../helpers/shards";

const SECRET = new TextEncoder().encode("test-session-secret-0123456789abcdef");

async function userIn(orgId: string, role: "admin" | "custodian" | "member") {
  const user = await operator("POST", `/orgs/${orgId}/users`, { email: `${role}-${crypto.randomUUID()}@example.com`, name: role, role });
  return user.body.data.user_id as string;
}

const sign = (claims: Record<string, unknown>, opts: { iss?: string; aud?: string; alg?: string; exp?: number; secret?: Uint8Array } = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: opts.alg ?? "HS256" })
    .setIssuer(opts.iss ?? "esign-vault")
    .setAudience(opts.aud ?? "esign-vault-console")
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 600)
    .sign(opts.secret ?? SECRET);

describe("console session authentication", () => {
  it("voids an envelope for a member with a token minted by the operator", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const userId = await userIn(t.orgId, "member");
    const token = await operator("POST", `/users/${userId}/access-tokens`, { org_id: t.orgId, ttl_seconds: 600 });
    expect(token.status).toBe(201);
    expect(token.body.data.expires_at).toMatch(/\.\d{3}Z$/);
    const res = await call("POST", `/envelopes/${e.envelope_id}/void`, { bearer: token.body.data.access_token, body: { reason: "customer asked" } });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe("voided");
    const audit = await shardDbOf(e.envelope_id).prepare("SELECT actor_type, actor_id FROM audit_log WHERE chain_id = ? AND seq = 2").bind(e.envelope_id).first();
    expect(audit).toEqual({ actor_type: "user", actor_id: userId });
  });

  it("takes the organization from X-Org-Id and refuses organizations the user is not in", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const e = await createEnvelope(t.key);
    const userId = await userIn(t.orgId, "admin");
    const token = await sign({ sub: userId });
    const noOrg = await call("GET", `/envelopes/${e.envelope_id}/audit/verify`, { bearer: token });
    expect(noOrg.status).toBe(403);
    expect(noOrg.body.error).toMatch(/X-Org-Id/);
    const ok = await call("GET", `/envelopes/${e.envelope_id}/audit/verify`, { bearer: token, headers: { "X-Org-Id": t.orgId } });
    expect(ok.status).toBe(200);
    const foreign = await call("GET", `/envelopes/${e.envelope_id}/audit/verify`, { bearer: token, headers: { "X-Org-Id": other.orgId } });
    expect(foreign.status).toBe(403);
  });

  it("answers 404 for another organization's envelope even to an admin", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const e = await createEnvelope(other.key);
    const token = await sign({ sub: await userIn(t.orgId, "admin"), org_id: t.orgId });
    const res = await call("POST", `/envelopes/${e.envelope_id}/void`, { bearer: token, body: { reason: "x" } });
    expect(res.status).toBe(404);
  });

  it("refuses tokens with another algorithm, issuer, audience, key, or past their expiry", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const userId = await userIn(t.orgId, "admin");
    const unsignedNone = `${btoa(JSON.stringify({ alg: "none", typ: "JWT" })).replace(/=/g, "")}.${btoa(JSON.stringify({ sub: userId, org_id: t.orgId, iss: "esign-vault", aud: "esign-vault-console", exp: Math.floor(Date.now() / 1000) + 600 })).replace(/=/g, "")}.`;
    const bad = [
      await sign({ sub: userId, org_id: t.orgId }, { alg: "HS512" }),
      await sign({ sub: userId, org_id: t.orgId }, { iss: "someone-else" }),
      await sign({ sub: userId, org_id: t.orgId }, { aud: "https://embed.example" }),
      await sign({ sub: userId, org_id: t.orgId }, { secret: new TextEncoder().encode("another-secret-another-secret-0000") }),
      await sign({ sub: userId, org_id: t.orgId }, { exp: Math.floor(Date.now() / 1000) - 10 }),
      unsignedNone,
      "not-a-jwt",
    ];
    for (const token of bad) {
      const res = await call("GET", `/envelopes/${e.envelope_id}/audit/verify`, { bearer: token });
      expect(res.status, token.slice(0, 30)).toBe(401);
    }
    const none = await call("GET", `/envelopes/${e.envelope_id}/audit/verify`);
    expect(none.status).toBe(401);
    expect(none.body.error).toMatch(/Access token required/);
  });

  it("does not accept a partner API key on console routes", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const res = await call("POST", `/envelopes/${e.envelope_id}/void`, { key: t.key, body: { reason: "x" } });
    expect(res.status).toBe(401);
  });
});
