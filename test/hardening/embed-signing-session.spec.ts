import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mintSigningSession } from "../../src/services/signers/signing-session";
import { call, newTenant } from "../helpers/api";
import { invitationSlug, signerIdOf } from "../helpers/signing";
import { sentTwoSignerEnvelope, signing } from "../helpers/signing-flow";

/**
 * A 15-minute embed token must not become a year-long credential: the sign widget gets a signing
 * session that ends with the token, never the signer's permanent slug.
 */
async function embeddedSigner() {
  const t = await newTenant();
  const flow = await sentTwoSignerEnvelope(t.key, { parallel: true });
  const minted = await call("POST", "/embed/token", { key: t.key, body: { envelope_id: flow.envelopeId, user_email: "ann@example.com", widget_type: "sign" } });
  expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  const session = await call("POST", "/embed/session", { bearer: minted.body.data.token, body: { widget_type: "sign", envelope_id: flow.envelopeId } });
  expect(session.status, JSON.stringify(session.body)).toBe(200);
  return { flow, token: minted.body.data as { token: string; expires_at: string }, session: session.body.data as { signing_slug: string; signing_session_expires_at: string } };
}

describe("an embed token opens a signing session that ends with it", () => {
  it("whoever holds an embed token never learns the signer's permanent slug, and the widget still signs", async () => {
    const { flow, token, session } = await embeddedSigner();
    const permanent = await invitationSlug(flow.envelopeId, "ann@example.com");
    expect(session.signing_slug).not.toContain(permanent);
    expect(session.signing_session_expires_at).toBe(token.expires_at);

    const page = await signing("GET", session.signing_slug);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body.data.signer.email).toBe("ann@example.com");
    expect(JSON.stringify(page.body)).not.toContain(permanent);
    const document = await call("GET", `/signing/${session.signing_slug}/document`);
    expect(document.status).toBe(200);
  });

  it("a signing session past its embed token's expiry is refused 410 and cannot sign or decline", async () => {
    const { flow } = await embeddedSigner();
    const expired = await mintSigningSession(env, { signerId: await signerIdOf(flow.buyer), expiresAt: Math.floor(Date.now() / 1000) - 1 });
    for (const [method, action, body] of [
      ["GET", "", undefined],
      ["GET", "document", undefined],
      ["POST", "decline", { reason: "a leaked token tries to decline" }],
      ["POST", "payment-token", undefined],
    ] as const) {
      const res = await signing(method, expired, action, body);
      expect(res.status, `${method} ${action}: ${JSON.stringify(res.body)}`).toBe(410);
      expect(res.body.code).toBe("signing_session_expired");
      expect(res.headers.get("X-Request-Id")).toMatch(/^req_/);
    }
    // the permanent slug still works for the signer's own e-mailed link
    const page = await signing("GET", await invitationSlug(flow.envelopeId, "ann@example.com"));
    expect(page.status).toBe(200);
    expect(page.body.data.signer.status).not.toBe("declined");
  });

  it("a tampered or invented signing session is an unknown signing link (404)", async () => {
    const { session } = await embeddedSigner();
    const s = session.signing_slug;
    const flipped = s.slice(0, 10) + (s[10] === "A" ? "B" : "A") + s.slice(11);
    for (const credential of [flipped, `es_${"A".repeat(60)}`, "es_short_but_long_enough"]) {
      const res = await signing("GET", credential);
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body).toEqual({ error: "Signing link not found", code: "not_found" });
    }
  });

  it("a caller cannot pass its own signing-session expiry header on the permanent slug's routes to change anything", async () => {
    const { flow } = await embeddedSigner();
    const res = await signing("GET", await invitationSlug(flow.envelopeId, "ann@example.com"), "", undefined, { "X-Signing-Session-Expires": "1" });
    expect(res.status).toBe(200);
  });
});
