import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mintSigningSession, openSigningSession } from "../../src/services/signers/signing-session";
import { call, newKey, newTenant } from "../helpers/api";
import { BUYER, payingTenant, sentPayEnvelope, sign } from "../helpers/payments";
import { invitationSlug, sendableEnvelope, signerIdOf, signerRows } from "../helpers/signing";
import { sentTwoSignerEnvelope, signing, TINY_PNG } from "../helpers/signing-flow";
import { shardDbOf } from "../helpers/shards";

/**
 * A signer's permanent slug is the power to sign for the life of the envelope. Only the invitation
 * email carries it: a read-only API key, the database and the payment processor see at most a
 * 15-minute signing session.
 */
const links = (key: string, envelopeId: string) => call("GET", `/partner/envelopes/${envelopeId}/signing-links`, { key });
const FIFTEEN_MINUTES = 15 * 60_000;

describe("signing links handed to a read-only key are short-lived sessions", () => {
  it("a key with only envelopes:read gets links that end after 15 minutes and contain no permanent slug", async () => {
    const t = await newTenant();
    const flow = await sentTwoSignerEnvelope(t.key, { parallel: true });
    const { key: reader } = await newKey(t.orgId, ["envelopes:read"]);
    const before = Date.now();
    const res = await links(reader, flow.envelopeId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const permanent = [await invitationSlug(flow.envelopeId, "ann@example.com"), await invitationSlug(flow.envelopeId, "cole@example.com")];
    for (const link of res.body.data.signers) {
      for (const slug of permanent) expect(JSON.stringify(link)).not.toContain(slug);
      expect(link.embed_url).toBe(`${env.EMBED_HOST}/s/${link.slug}`);
      const expiresAt = Date.parse(link.expires_at);
      expect(expiresAt).toBeGreaterThan(before + FIFTEEN_MINUTES - 60_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + FIFTEEN_MINUTES);
      // the session itself ends then: its sealed expiry is the one announced
      expect((await openSigningSession(env, link.slug)).expiresAt * 1000).toBe(expiresAt);
      await expect(openSigningSession(env, link.slug, expiresAt + 1000)).rejects.toMatchObject({ status: 410, code: "signing_session_expired" });
    }
    // while it lasts, the link opens the signer's page (the signing page and the signer API)
    const ann = res.body.data.signers.find((s: { email: string }) => s.email === "ann@example.com");
    const page = await signing("GET", ann.slug);
    expect(page.status).toBe(200);
    expect(page.body.data.signer.email).toBe("ann@example.com");
    const html = await SELF.fetch(ann.embed_url);
    expect(html.status).toBe(200);
    expect(await html.text()).toContain(`data-slug="${ann.slug}"`);
  });

  it("after its 15 minutes a link cannot view, sign or decline (410), and the envelope is untouched", async () => {
    const t = await newTenant();
    const flow = await sentTwoSignerEnvelope(t.key, { parallel: true });
    const { key: reader } = await newKey(t.orgId, ["envelopes:read"]);
    const [ann] = (await links(reader, flow.envelopeId)).body.data.signers;
    // the same signer's session as the links mint it, with the clock 15 minutes on
    const lapsed = await mintSigningSession(env, { signerId: await signerIdOf(ann.slug), expiresAt: Math.floor(Date.now() / 1000) - 1 });
    for (const [method, action, body] of [
      ["GET", "", undefined],
      ["POST", "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Not Ann" } }],
      ["POST", "decline", { reason: "a read-only key tries to decline" }],
    ] as const) {
      const res = await signing(method, lapsed, action, body);
      expect(res.status, `${method} ${action}: ${JSON.stringify(res.body)}`).toBe(410);
      expect(res.body.code).toBe("signing_session_expired");
    }
    expect((await signerRows(flow.envelopeId)).map((s) => s.status)).toEqual(["pending", "pending"]);
  });
});

describe("the database holds no signing power", () => {
  it("signers.slug_hash is a SHA-256, not the slug, and no form of it opens the signer API", async () => {
    const t = await newTenant();
    const flow = await sentTwoSignerEnvelope(t.key, { parallel: true });
    const slug = await invitationSlug(flow.envelopeId, "ann@example.com");
    const [row] = await signerRows(flow.envelopeId);
    expect(row!.slug).toBeUndefined();
    expect(row!.slug_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(row!.slug_hash).not.toContain(slug);
    expect((await signing("GET", row!.slug_hash)).status).toBe(400);
    const hex = row!.slug_hash.slice("sha256:".length);
    expect((await signing("GET", hex)).status).toBe(404);
    expect((await signing("GET", hex.slice(0, 26))).status).toBe(404);
    // the emailed slug is the credential
    const page = await signing("GET", slug);
    expect(page.status).toBe(200);
    expect(page.body.data.signer.email).toBe("ann@example.com");
  });

  it("a signer of a later routing order gets a permanent link only with their invitation, stored hashed", async () => {
    const t = await newTenant();
    const flow = await sentTwoSignerEnvelope(t.key);
    const before = (await signerRows(flow.envelopeId))[1]!.slug_hash;
    await expect(invitationSlug(flow.envelopeId, "cole@example.com")).rejects.toThrow(/no invitation/);
    const buyer = await invitationSlug(flow.envelopeId, "ann@example.com");
    expect((await signing("POST", buyer, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer" } })).status).toBe(200);
    const cole = await invitationSlug(flow.envelopeId, "cole@example.com");
    const after = (await signerRows(flow.envelopeId))[1]!.slug_hash;
    expect(after).not.toBe(before);
    expect(after).not.toContain(cole);
    const page = await signing("GET", cole);
    expect(page.status).toBe(200);
    expect(page.body.data.signer.email).toBe("cole@example.com");
  });

  it("a row from before hashing keeps working by its raw slug, which is rehashed on first use", async () => {
    const t = await newTenant({ shard: 1 }); // rows from before hashing predate sharding: they are on shard 1, where an untagged slug leads
    const flow = await sentTwoSignerEnvelope(t.key, { parallel: true });
    const legacy = "legacyrawslug0123456789abc";
    const [row] = await signerRows(flow.envelopeId);
    await shardDbOf(flow.envelopeId).prepare("UPDATE signers SET slug_hash = ? WHERE id = ?").bind(legacy, row!.id).run();
    const page = await signing("GET", legacy);
    expect(page.status).toBe(200);
    expect(page.body.data.signer.email).toBe("ann@example.com");
    const [rehashed] = await signerRows(flow.envelopeId);
    expect(rehashed!.slug_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await signing("GET", legacy)).status).toBe(200);
  });

  it("an idempotent send's stored replay holds no permanent slug", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key, ["buyer"], { customer_email: "jane@example.com", customer_name: "Jane" });
    const headers = { "Idempotency-Key": `send-${e.envelope_id}` };
    const first = await call("POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: {}, headers });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const slug = await invitationSlug(e.envelope_id, "jane@example.com");
    const stored = await env.DB.prepare("SELECT response_body FROM idempotency_keys WHERE idempotency_key = ?").bind(headers["Idempotency-Key"]).first<{ response_body: string }>();
    expect(stored!.response_body).toContain(e.envelope_id);
    expect(stored!.response_body).not.toContain(slug);
    const replay = await call("POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: {}, headers });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(JSON.stringify(replay.body)).not.toContain(slug);
  });
});

describe("Sign + Pay never outlives or leaks the signer's credential", () => {
  async function paidBuyerSigned() {
    const t = await payingTenant();
    const flow = await sentPayEnvelope(t.key);
    const slug = await invitationSlug(flow.envelopeId, BUYER.email);
    expect((await sign(slug, "buyer")).status).toBe(200);
    return { ...flow, slug, signerId: await signerIdOf(slug) };
  }

  it("a payment token asked through a signing session ends with the session", async () => {
    const { signerId } = await paidBuyerSigned();
    const sessionEnds = Math.floor(Date.now() / 1000) + 120;
    const session = await mintSigningSession(env, { signerId, expiresAt: sessionEnds });
    const res = await signing("POST", session, "payment-token");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.payment_required).toBe(true);
    expect(Date.parse(res.body.data.expires_at)).toBe(sessionEnds * 1000);
    const [, payload] = (res.body.data.token as string).split(".");
    expect(JSON.parse(atob(payload!.replace(/-/g, "+").replace(/_/g, "/"))).exp).toBe(sessionEnds);
  });

  it("the Stripe return_url is a session on the signer's page, never the permanent slug", async () => {
    const { slug } = await paidBuyerSigned();
    const res = await signing("POST", slug, "payment-token");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { return_url: returnUrl, expires_at: expiresAt } = res.body.data;
    expect(returnUrl).not.toContain(slug);
    expect(returnUrl).toMatch(new RegExp(`^${env.EMBED_HOST}/s/es_[A-Za-z0-9_-]+$`));
    const session = returnUrl.split("/").pop()!;
    const opened = await openSigningSession(env, session);
    expect(opened.expiresAt * 1000).toBe(Date.parse(expiresAt));
    // back from the processor, the page's API still answers the payer's payment step
    const again = await signing("POST", session, "payment-token");
    expect(again.status).toBe(200);
    expect(again.body.data.payment_required).toBe(true);
  });
});
