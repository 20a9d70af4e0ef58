import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { randomToken } from "../../src/lib/ids";
import { shardOf } from "../../src/lib/shards";
import { mintSigningSession } from "../../src/services/signers/signing-session";
import { call, newTenant } from "../helpers/api";
import { embedToken } from "../helpers/payments";
import { invitationSlug, signerIdOf, signerRows } from "../helpers/signing";
import { sentTwoSignerEnvelope, signing, TINY_PNG } from "../helpers/signing-flow";
import { globalDb, shardDb } from "../helpers/shards";

/**
 * The signer side on a second shard (docs/decisions/shards.md 2 and 4, "Signer link"): a signer's
 * permanent slug names its shard (`2_…`), a signing session the shard of the signer id it seals, an
 * embed token the shard of its envelope; each request lands there with no lookup. Needs the test pool
 * to bind SHARD_2 (a separate database): the organization is moved there first.
 */

/** A fresh tenant whose envelopes are created on shard 2. */
async function tenantOnShard2() {
  const t = await newTenant({ name: "Second Shard Motors", shard: 2 });
  return t;
}

const rowsElsewhere = async (table: string, envelopeId: string) =>
  (await globalDb.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE envelope_id = ?`).bind(envelopeId).first<number>("n")) ?? 0;

describe("signing an envelope stored on shard 2", () => {
  it("the permanent slug names shard 2, the session names the signer's shard, and both sign through to completion there", async () => {
    const t = await tenantOnShard2();
    const e = await sentTwoSignerEnvelope(t.key);
    expect(shardOf(e.envelopeId)).toBe(2);

    // the invitation's permanent link: a slug tagged with the signer's shard
    const slug = await invitationSlug(e.envelopeId, "ann@example.com");
    expect(slug).toMatch(/^2_[0-9a-z]{26}$/);
    // the partner's link: a signing session sealing a signer id of shard 2
    expect(e.cosigner.startsWith("es_")).toBe(true);
    expect(shardOf(await signerIdOf(e.cosigner))).toBe(2);

    // the buyer opens and signs with the permanent slug
    const opened = await signing("GET", slug);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(opened.body.data.envelope).toMatchObject({ id: e.envelopeId, status: "sent" });
    expect(opened.body.data.is_your_turn).toBe(true);
    const buyer = await signing("POST", slug, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer" } });
    expect(buyer.status, JSON.stringify(buyer.body)).toBe(200);

    // the cosigner with the signing session: it is their turn, and their submit completes the envelope
    const cosigner = await signing("GET", e.cosigner);
    expect(cosigner.status, JSON.stringify(cosigner.body)).toBe(200);
    expect(cosigner.body.data.is_your_turn).toBe(true);
    const done = await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: TINY_PNG } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);

    // every write is on shard 2: the signers, the envelope, the signed document; nothing in the global database
    expect((await signerRows(e.envelopeId)).map((s) => s.status)).toEqual(["completed", "completed"]);
    expect(await shardDb(2).prepare("SELECT status FROM envelopes WHERE id = ?").bind(e.envelopeId).first("status")).toBe("completed");
    const signed = await shardDb(2).prepare("SELECT id FROM envelope_documents WHERE envelope_id = ? AND kind = 'signed'").bind(e.envelopeId).first<string>("id");
    expect(signed && shardOf(signed)).toBe(2);
    const actions = (await shardDb(2).prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(e.envelopeId).all<{ action: string }>()).results.map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(["signer.completed", "envelope.complete"]));
    expect(await rowsElsewhere("signers", e.envelopeId)).toBe(0);
    expect(await rowsElsewhere("envelope_documents", e.envelopeId)).toBe(0);

    // the signer's copy: its link names the shard-2 envelope, and the storage host serves it from there
    const after = await signing("GET", slug);
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body.data.envelope.status).toBe("completed");
    const copy = await SELF.fetch(after.body.data.copy.url as string);
    expect(copy.status).toBe(200);
    expect(copy.headers.get("content-type")).toBe("application/pdf");
    expect((await copy.arrayBuffer()).byteLength).toBeGreaterThan(0);

    // the signing page finds the signer on shard 2 too, by slug and by session (its CSP names the page, never a 500)
    for (const credential of [slug, e.cosigner]) {
      const page = await SELF.fetch(`http://localhost/embed/s/${credential}`);
      expect(page.status).toBe(200);
    }
  });

  it("an embed token of a shard-2 envelope opens its sign widget, whose session signs on shard 2", async () => {
    const t = await tenantOnShard2();
    const e = await sentTwoSignerEnvelope(t.key);
    const minted = await embedToken(t.key, e.envelopeId, "ann@example.com");
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    const token = minted.body.data.token as string;

    const session = await call("POST", "/embed/session", { bearer: token, body: { widget_type: "sign", envelope_id: e.envelopeId } });
    expect(session.status, JSON.stringify(session.body)).toBe(200);
    expect(session.body.data).toMatchObject({ widget_type: "sign", envelope_id: e.envelopeId, envelope_status: "sent" });
    const widgetSlug = session.body.data.signing_slug as string;
    expect(shardOf(await signerIdOf(widgetSlug))).toBe(2);

    const viewed = await signing("POST", widgetSlug, "view");
    expect(viewed.status, JSON.stringify(viewed.body)).toBe(200);
    const buyer = (await signerRows(e.envelopeId)).find((s) => s.email === "ann@example.com")!;
    expect(buyer.viewed_at).not.toBeNull();
    // the payment-status call reads the same envelope's shard: no payment was asked on this one
    const status = await call("POST", "/embed/payment-status", { bearer: token });
    expect(status.status, JSON.stringify(status.body)).toBe(200);
    expect(status.body.data).toEqual({ status: null });
  });
});

describe("a credential naming a shard this deployment does not bind", () => {
  it("is the ordinary 404 of an unknown signing link, for a slug and for a session alike, never a 500", async () => {
    const slug = `7_${randomToken(16)}`;
    const session = await mintSigningSession(env, { signerId: `sgn_7_${randomToken(16)}`, expiresAt: Math.floor(Date.now() / 1000) + 600 });
    for (const credential of [slug, session]) {
      const res = await signing("GET", credential);
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body.error).toMatch(/Signing link/);
      expect((await signing("POST", credential, "submit", { values: {} })).status).toBe(404);
      const page = await SELF.fetch(`http://localhost/sign/s/${credential}`);
      expect(page.status).toBe(200);
    }
  });
});
