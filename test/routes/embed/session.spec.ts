import { env, SELF } from "cloudflare:test";
import { SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { mintEmbedToken } from "../../../src/services/embed/tokens";
import { ALL_SCOPES, call, createEnvelope, newKey, newTenant } from "../../helpers/api";
import { sha256Hex } from "../../helpers/pdf";
import { sentTwoSignerEnvelope, signing } from "../../helpers/signing-flow";
import { completedEnvelope, download } from "../../helpers/vault";
import { orgContextOf } from "../../helpers/context";
import { adminToken } from "../../helpers/webhooks";

type Widget = "sign" | "vault";

const openSession = (token: string | undefined, body: { widget_type: Widget | string; envelope_id: string }, headers: Record<string, string> = {}) =>
  call("POST", "/embed/session", { bearer: token, body, headers });

/** POST /embed/token as the partner's backend does; returns the token and the embed_url. */
async function embedToken(key: string, envelopeId: string, userEmail: string, widget: Widget) {
  const res = await call("POST", "/embed/token", { key, body: { envelope_id: envelopeId, user_email: userEmail, widget_type: widget } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { token: string; embed_url: string };
}

/** A token signed outside the service, for the cases the mint route never produces. */
async function forged(claims: Record<string, unknown>, opts: { secret?: string; alg?: string; aud?: string; exp?: number } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: opts.alg ?? "HS256", typ: "JWT" })
    .setAudience(opts.aud ?? env.EMBED_HOST)
    .setIssuedAt(now)
    .setExpirationTime(opts.exp ?? now + 900)
    .sign(new TextEncoder().encode(opts.secret ?? env.EMBED_TOKEN_SECRET!));
}

async function vaultedEnvelope() {
  const t = await newTenant();
  const e = await completedEnvelope(t.key);
  const res = await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} });
  expect(res.status).toBe(200);
  return { t, e };
}

describe("POST /embed/session: the sign widget", () => {
  it("opens the page for the token's signer: the second signer's token answers the second signer's slug", async () => {
    const t = await newTenant();
    const flow = await sentTwoSignerEnvelope(t.key);
    const { token, embed_url } = await embedToken(t.key, flow.envelopeId, "Cole@Example.com", "sign");
    const url = new URL(embed_url);
    expect(url.pathname).toBe(`${new URL(env.EMBED_HOST).pathname}/sign/${flow.envelopeId}`);
    expect(url.search).toBe("");
    expect(url.hash).toBe(`#token=${token}`);

    const res = await openSession(token, { widget_type: "sign", envelope_id: flow.envelopeId });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("X-Request-Id")).toMatch(/^req_/);
    expect(res.body).toEqual({
      data: {
        widget_type: "sign",
        envelope_id: flow.envelopeId,
        envelope_name: expect.any(String),
        envelope_status: "sent",
        // a signing session that ends with the token, never the signer's permanent slug (docs/decisions/embed-widgets.md)
        signing_slug: expect.stringMatching(/^es_[A-Za-z0-9_-]+$/),
        signing_session_expires_at: expect.any(String),
      },
    });
    expect(res.body.data.signing_slug).not.toBe(flow.cosigner);
    const page = await signing("GET", res.body.data.signing_slug);
    expect(page.body.data.signer.email).toBe("cole@example.com");
    expect(page.body.data.is_your_turn).toBe(false);

    const first = await embedToken(t.key, flow.envelopeId, "ann@example.com", "sign");
    const firstSession = (await openSession(first.token, { widget_type: "sign", envelope_id: flow.envelopeId })).body.data.signing_slug;
    expect((await signing("GET", firstSession)).body.data.signer.email).toBe("ann@example.com");
  });

  it("refuses with 403 a token whose email is not a signer of the envelope", async () => {
    const t = await newTenant();
    const flow = await sentTwoSignerEnvelope(t.key);
    const { token } = await embedToken(t.key, flow.envelopeId, "stranger@example.com", "sign");
    const res = await openSession(token, { widget_type: "sign", envelope_id: flow.envelopeId });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "stranger@example.com is not a signer of this envelope", code: "forbidden" });
  });
});

describe("POST /embed/session: the vault widget", () => {
  it("speaks the token's locale, else the organization's default_locale, else English; its page opens in the organization's", async () => {
    const { t, e } = await vaultedEnvelope();
    const localeOf = async (locale?: string) => {
      const res = await call("POST", "/embed/token", { key: t.key, body: { envelope_id: e.envelope_id, user_email: "ops@lender.example", widget_type: "vault", ...(locale ? { locale } : {}) } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (await openSession(res.body.data.token, { widget_type: "vault", envelope_id: e.envelope_id })).body.data.locale;
    };
    const pageLang = async () => /<html lang="(\w+)">/.exec(await (await SELF.fetch(`http://localhost/embed/vault/${e.envelope_id}`)).text())?.[1];
    expect([await localeOf(), await localeOf("es"), await pageLang()]).toEqual(["en", "es", "en"]);
    expect((await call("PUT", "/org/settings", { bearer: await adminToken(t.orgId), body: { default_locale: "es" } })).status).toBe(200);
    expect([await localeOf(), await localeOf("en"), await pageLang()]).toEqual(["es", "en", "es"]);
    // a language the widget does not speak, or one for the sign widget (which speaks its envelope's), is 422 on locale
    for (const body of [{ widget_type: "vault", locale: "fr" }, { widget_type: "sign", locale: "es" }]) {
      const res = await call("POST", "/embed/token", { key: t.key, body: { envelope_id: e.envelope_id, user_email: "ops@lender.example", ...body } });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.details.map((d: { path: string[] }) => d.path.join("."))).toContain("locale");
    }
  });

  it("shows the vaulted document's hash, certificate and compliance, and a download URL that serves the authoritative bytes", async () => {
    const { t, e } = await vaultedEnvelope();
    const { token } = await embedToken(t.key, e.envelope_id, "ops@lender.example", "vault");
    const res = await openSession(token, { widget_type: "vault", envelope_id: e.envelope_id });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const data = res.body.data;
    expect(data).toMatchObject({ widget_type: "vault", envelope_id: e.envelope_id, envelope_name: e.envelope_name, envelope_status: "vaulted" });
    expect(Object.keys(data.vault).sort()).toEqual(["certificate", "certificate_download", "compliance", "download", "record", "sha256", "vaulted_at"]);
    // an open record: kept while open, no hold
    expect(data.vault.record).toMatchObject({ status: "active", closed_at: null, retain_until: null, auto_destroy: false, destroyed_at: null, holds: [] });
    expect(data.vault.sha256).toBe(e.hash);
    expect(data.vault.vaulted_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const certificate = await call("GET", `/partner/envelopes/${e.envelope_id}/vault/certificate`, { key: t.key });
    expect(data.vault.certificate).toEqual(certificate.body.data);
    expect(data.vault.compliance).toEqual({
      compliant: certificate.body.data.ucc_9105_compliance.compliant,
      score: certificate.body.data.ucc_9105_compliance.score,
    });
    expect(data.vault.compliance.compliant).toBe(true);

    expect(Object.keys(data.vault.download).sort()).toEqual(["expires_at", "url"]);
    expect(data.vault.download.url.startsWith(`${env.STORAGE_HOST}/v/`)).toBe(true);
    expect(Date.parse(data.vault.download.expires_at)).toBeGreaterThan(Date.now());
    const file = await download(data.vault.download.url);
    expect(file.status).toBe(200);
    expect(await sha256Hex(file.bytes)).toBe(data.vault.sha256);
    expect(file.bytes).toEqual(e.bytes);
    // the widget's certificate link: the certificate's PDF
    const certificatePdf = await download(data.vault.certificate_download.url);
    expect(certificatePdf.status).toBe(200);
    expect(certificatePdf.headers.get("content-type")).toBe("application/pdf");
    expect(new TextDecoder().decode(certificatePdf.bytes.subarray(0, 5))).toBe("%PDF-");
  });

  it("shows a paid-off record's retain_until, the controller's auto_destroy and the hold in force, as the record read answers them", async () => {
    const { t, e } = await vaultedEnvelope();
    const control = await newKey(t.orgId, ["vault:control", "vault:read"]);
    const vaultId = (await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.vault_id as string;
    const paid = await call("POST", `/partner/vault/${vaultId}/paid-off`, { key: control.key, body: {} });
    expect(paid.status).toBe(200);
    const hold = await call("POST", `/partner/vault/${vaultId}/holds`, { key: control.key, body: { reason: "Litigation: Smith v. Lender", reference: "Case 26-cv-0412" } });
    expect(hold.status).toBe(201);
    const record = (await call("GET", `/partner/vault/${vaultId}`, { key: control.key })).body.data;
    expect(record.retain_until).toEqual(expect.any(String));

    const { token } = await embedToken(t.key, e.envelope_id, "ops@lender.example", "vault");
    const data = (await openSession(token, { widget_type: "vault", envelope_id: e.envelope_id })).body.data;
    expect(data.vault.record).toEqual({
      vault_id: vaultId,
      status: "paid_off",
      closed_at: record.closed_at,
      retain_until: record.retain_until,
      auto_destroy: false,
      destroyed_at: null,
      holds: [{ ...hold.body.data, placed_by_name: "Test Lender" }],
    });
    // closed, not destroyed: the marked copy is still offered
    expect(data.vault.download).not.toBeNull();
  });

  it("answers vault: null while the envelope is not vaulted yet", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    const token = await forged({ envelopeId: e.envelope_id, orgId: t.orgId, userEmail: "ops@lender.example", widgetType: "vault" });
    const res = await openSession(token, { widget_type: "vault", envelope_id: e.envelope_id });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ widget_type: "vault", envelope_id: e.envelope_id, envelope_name: e.envelope_name, envelope_status: "completed", locale: "en", vault: null });
  });
});

describe("POST /embed/session: tokens it refuses", () => {
  async function signSetup() {
    const t = await newTenant();
    const flow = await sentTwoSignerEnvelope(t.key);
    const claims = { envelopeId: flow.envelopeId, orgId: t.orgId, userEmail: "ann@example.com", widgetType: "sign" };
    return { t, flow, claims, body: { widget_type: "sign", envelope_id: flow.envelopeId } };
  }

  it("says an expired token is expired (401, reason expired)", async () => {
    const { t, flow, body } = await signSetup();
    const old = await mintEmbedToken(orgContextOf(t.orgId, flow.envelopeId), {
      scopes: ALL_SCOPES,
      envelopeId: flow.envelopeId,
      userEmail: "ann@example.com",
      widgetType: "sign",
      now: new Date(Date.now() - 16 * 60 * 1000),
    });
    const res = await openSession(old.token, body);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/expired/);
    expect(res.body.details).toEqual({ reason: "expired" });
  });

  it("refuses a token signed with another secret, with alg none or HS512, or for another audience (401, reason invalid)", async () => {
    const { claims, body } = await signSetup();
    const now = Math.floor(Date.now() / 1000);
    const tokens = {
      otherSecret: await forged(claims, { secret: "another-secret-0123456789abcdef0123" }),
      algNone: new UnsecuredJWT(claims).setAudience(env.EMBED_HOST).setIssuedAt(now).setExpirationTime(now + 900).encode(),
      hs512: await forged(claims, { alg: "HS512" }),
      otherAudience: await forged(claims, { aud: "https://evil.example" }),
      garbage: "not-a-token",
    };
    expect((await openSession(await forged(claims), body)).status).toBe(200);
    for (const [name, token] of Object.entries(tokens)) {
      const res = await openSession(token, body);
      expect(res.status, name).toBe(401);
      expect(res.body, name).toEqual({ error: "Invalid embed token", details: { reason: "invalid" }, code: "unauthorized" });
    }
  });

  it("needs the token in the Authorization header, not in the URL (401, reason missing)", async () => {
    const { t, flow, body } = await signSetup();
    const { token } = await embedToken(t.key, flow.envelopeId, "ann@example.com", "sign");
    const res = await call("POST", `/embed/session?token=${token}`, { body });
    expect(res.status).toBe(401);
    expect(res.body.details).toEqual({ reason: "missing" });
    expect((await call("POST", "/embed/session", { body, headers: { Authorization: `Token ${token}` } })).status).toBe(401);
  });

  it("refuses with 403 a genuine token for another envelope of the organization", async () => {
    const { t, flow } = await signSetup();
    const other = await sentTwoSignerEnvelope(t.key);
    const { token } = await embedToken(t.key, flow.envelopeId, "ann@example.com", "sign");
    const res = await openSession(token, { widget_type: "sign", envelope_id: other.envelopeId });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "This embed token is for another envelope or widget", code: "forbidden" });
  });

  it("refuses with 403 a sign token used to open the vault widget", async () => {
    const { t, flow } = await signSetup();
    const { token } = await embedToken(t.key, flow.envelopeId, "ann@example.com", "sign");
    const res = await openSession(token, { widget_type: "vault", envelope_id: flow.envelopeId });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "This embed token is for another envelope or widget", code: "forbidden" });
  });

  it("never shows one organization's envelope to another organization's token", async () => {
    const a = await vaultedEnvelope();
    const b = await vaultedEnvelope();
    const { token } = await embedToken(a.t.key, a.e.envelope_id, "ops@lender.example", "vault");
    const swapped = await openSession(token, { widget_type: "vault", envelope_id: b.e.envelope_id });
    expect(swapped.status).toBe(403);
    expect(swapped.body.data).toBeUndefined();
    // a token naming org A with org B's envelope (as a bug in minting would produce) finds nothing
    const crossed = await forged({ envelopeId: b.e.envelope_id, orgId: a.t.orgId, userEmail: "ops@lender.example", widgetType: "vault" });
    const res = await openSession(crossed, { widget_type: "vault", envelope_id: b.e.envelope_id });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Envelope not found", code: "not_found" });
    expect(JSON.stringify(res.body)).not.toContain(b.e.hash);
  });

  it("validates the body (422) and takes JSON only (415)", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const token = await forged({ envelopeId: e.envelope_id, orgId: t.orgId, userEmail: "a@example.com", widgetType: "sign" });
    const bad = await openSession(token, { widget_type: "sketch", envelope_id: e.envelope_id });
    expect(bad.status).toBe(422);
    expect(bad.body.details[0].path).toEqual(["widget_type"]);
    const text = await call("POST", "/embed/session", { bearer: token, raw: "{}", headers: { "Content-Type": "text/plain" } });
    expect(text.status).toBe(415);
  });
});
