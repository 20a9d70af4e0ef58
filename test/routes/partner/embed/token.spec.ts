import { env } from "cloudflare:test";
import { decodeJwt, decodeProtectedHeader, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { verifyEmbedToken } from "../../../../src/services/embed/tokens";
import { ALL_SCOPES, call, createEnvelope, newKey, newTenant } from "../../../helpers/api";
import { shardDbOf } from "../../../helpers/shards";

async function envelopeIn(key: string, status: string, kba = false) {
  const e = await createEnvelope(key);
  await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = ?, kba_required = ? WHERE id = ?").bind(status, kba ? 1 : 0, e.envelope_id).run();
  return e;
}

const mint = (key: string, body: Record<string, unknown>) => call("POST", "/embed/token", { key, body });

describe("POST /embed/token", () => {
  it("mints a 15-minute HS256 token for one envelope and widget, carried in the URL fragment", async () => {
    const t = await newTenant();
    const e = await envelopeIn(t.key, "sent");
    const before = Math.floor(Date.now() / 1000);
    const res = await mint(t.key, { envelope_id: e.envelope_id, user_email: "jane@example.com", widget_type: "sign" });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.widget_type).toBe("sign");
    expect(data.envelope_id).toBe(e.envelope_id);
    expect(data.embed_url).toBe(`${env.EMBED_HOST}/sign/${e.envelope_id}#token=${data.token}`);
    expect(new URL(data.embed_url).search).toBe("");
    expect(decodeProtectedHeader(data.token).alg).toBe("HS256");
    const claims = decodeJwt(data.token);
    expect(claims).toMatchObject({ envelopeId: e.envelope_id, orgId: t.orgId, userEmail: "jane@example.com", widgetType: "sign", aud: env.EMBED_HOST });
    expect(claims.exp! - claims.iat!).toBe(900);
    expect(claims.iat!).toBeGreaterThanOrEqual(before);
    expect(Date.parse(data.expires_at)).toBe(claims.exp! * 1000);
    expect(await verifyEmbedToken(env, data.token, { widgetType: "sign", envelopeId: e.envelope_id })).toMatchObject({ envelopeId: e.envelope_id });
  });

  it("allows sign only while sent or viewed, and vault only once vaulted (409 otherwise)", async () => {
    const t = await newTenant();
    const cases: [string, string, number][] = [
      ["sign", "sent", 200], ["sign", "viewed", 200], ["sign", "pending", 409], ["sign", "completed", 409], ["sign", "vaulted", 409],
      ["vault", "vaulted", 200], ["vault", "completed", 409], ["vault", "sent", 409],
    ];
    for (const [widget, status, expected] of cases) {
      const e = await envelopeIn(t.key, status);
      const res = await mint(t.key, { envelope_id: e.envelope_id, user_email: "a@example.com", widget_type: widget });
      expect(res.status, `${widget} on ${status}`).toBe(expected);
      if (expected === 409) expect(res.body.error).toContain(status);
    }
  });

  it("refuses a KBA envelope for signing with 409 and code kba_required", async () => {
    const t = await newTenant();
    const e = await envelopeIn(t.key, "sent", true);
    const res = await mint(t.key, { envelope_id: e.envelope_id, user_email: "a@example.com", widget_type: "sign" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("kba_required");
  });

  it("needs esign:write for sign and vault:read for vault", async () => {
    const t = await newTenant();
    const sent = await envelopeIn(t.key, "sent");
    const vaulted = await envelopeIn(t.key, "vaulted");
    const noSign = await newKey(t.orgId, ALL_SCOPES.filter((s) => s !== "esign:write"));
    const noVault = await newKey(t.orgId, ALL_SCOPES.filter((s) => s !== "vault:read"));
    const a = await mint(noSign.key, { envelope_id: sent.envelope_id, user_email: "a@example.com", widget_type: "sign" });
    expect(a.status).toBe(403);
    expect(a.body.error).toBe("Missing required scope: esign:write");
    const b = await mint(noVault.key, { envelope_id: vaulted.envelope_id, user_email: "a@example.com", widget_type: "vault" });
    expect(b.body.error).toBe("Missing required scope: vault:read");
    expect((await mint(noVault.key, { envelope_id: sent.envelope_id, user_email: "a@example.com", widget_type: "sign" })).status).toBe(200);
  });

  it("answers 404 for another organization's envelope and 422 for a bad email or widget", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const e = await envelopeIn(other.key, "sent");
    expect((await mint(t.key, { envelope_id: e.envelope_id, user_email: "a@example.com", widget_type: "sign" })).status).toBe(404);
    const bad = await mint(t.key, { envelope_id: e.envelope_id, user_email: "nope", widget_type: "sketch" });
    expect(bad.status).toBe(422);
    expect(bad.body.details.map((d: { path: string[] }) => d.path[0]).sort()).toEqual(["user_email", "widget_type"]);
  });
});

describe("embed token verification", () => {
  async function token(claims: Record<string, unknown>, opts: { aud?: string; exp?: number; alg?: string } = {}) {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: opts.alg ?? "HS256" })
      .setAudience(opts.aud ?? env.EMBED_HOST)
      .setIssuedAt(now)
      .setExpirationTime(opts.exp ?? now + 900)
      .sign(new TextEncoder().encode("test-embed-secret-0123456789abcdef"));
  }
  const claims = { envelopeId: "env_a", orgId: "org_a", userEmail: "a@example.com", widgetType: "sign" };

  it("refuses an expired token, another audience or another algorithm (401), and another envelope or widget (403)", async () => {
    const refuse = async (tok: string, expect_: { widgetType: "sign" | "vault"; envelopeId?: string }, status: number, reason?: string) =>
      expect(verifyEmbedToken(env, tok, expect_)).rejects.toMatchObject({ status, ...(reason ? { details: { reason } } : {}) });
    await expect(verifyEmbedToken(env, await token(claims), { widgetType: "sign", envelopeId: "env_a" })).resolves.toMatchObject({ orgId: "org_a" });
    await refuse(await token(claims, { exp: Math.floor(Date.now() / 1000) - 1 }), { widgetType: "sign" }, 401, "expired");
    await refuse(await token(claims, { aud: "https://evil.example" }), { widgetType: "sign" }, 401, "invalid");
    await refuse(await token(claims, { alg: "HS384" }), { widgetType: "sign" }, 401, "invalid");
    await refuse(await token({ ...claims, widgetType: "sketch" }), { widgetType: "sign" }, 401, "invalid");
    await refuse(await token(claims), { widgetType: "sign", envelopeId: "env_b" }, 403);
    await refuse(await token(claims), { widgetType: "vault" }, 403);
  });
});
