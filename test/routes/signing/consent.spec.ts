import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { openOutboxEmail } from "../../../src/services/email/outbox";
import { call, createEnvelope, newTenant } from "../../helpers/api";
import { auditOf, takeKba } from "../../helpers/kba";
import { eventsOf, invitationSlug, outboxOf, sendEnvelope, signerRows } from "../../helpers/signing";
import { sentTwoSignerEnvelope, signing, TINY_PNG } from "../../helpers/signing-flow";
import { consoleTemplate, memberToken } from "../../helpers/templates";
import { pageTexts } from "../../helpers/pdf";
import { bulkTenant, readyBatch, runToEnd, seedCustomers } from "../../helpers/bulk";
import { download } from "../../helpers/vault";
import { adminToken } from "../../helpers/webhooks";
import { globalDb, shardDbOf } from "../../helpers/shards";

const DISCLOSURE = {
  required: true,
  text: "Prairie Auto Finance: consent to electronic records. You may ask for paper copies; you may withdraw.",
  paper_copy_contact: "Call (555) 010-2000; paper copies are free.",
  withdrawal_instructions: "Choose Withdraw consent, or call (555) 010-2000.",
};

/** A tenant whose admin saved a disclosure with `required: true` (so envelopes ask for consent by default). */
async function consentTenant(disclosure = DISCLOSURE) {
  const t = await newTenant({ name: "Prairie Auto Finance" });
  const admin = await adminToken(t.orgId);
  const saved = await call("PUT", "/org/esign-disclosure", { bearer: admin, body: disclosure });
  expect(saved.status).toBe(200);
  return { ...t, admin, disclosure: saved.body.data as { version: number; sha256: string } };
}

const consent = (slug: string, body: unknown, headers: Record<string, string> = {}) => signing("POST", slug, "consent", body, headers);
const BUYER_VALUES = { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer" };

describe("POST /signing/:slug/consent (E-SIGN consumer consent)", () => {
  it("shows the disclosure, keeps the document, view, submit and the payment step closed until consent, then records it with its hash, address and user agent", async () => {
    const t = await consentTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    expect((await call("GET", `/partner/envelopes/${e.envelopeId}`, { key: t.key })).body.data.consumer_consent).toBe(true);

    const page = await signing("GET", e.buyer);
    expect(page.status).toBe(200);
    expect(page.body.data.consent).toEqual({
      required: true,
      given_at: null,
      disclosure: { version: 1, text: DISCLOSURE.text, paper_copy_contact: DISCLOSURE.paper_copy_contact, withdrawal_instructions: DISCLOSURE.withdrawal_instructions },
    });
    for (const [method, action, body] of [["GET", "document"], ["POST", "view"], ["POST", "submit", { values: BUYER_VALUES }], ["POST", "payment-token"]] as const) {
      const refused = await signing(method, e.buyer, action, body);
      expect(refused.status, action).toBe(403);
      expect(refused.body.code, action).toBe("consent_required");
    }
    expect((await signerRows(e.envelopeId))[0]!.status).toBe("pending");

    const res = await consent(e.buyer, { agree: true }, { "cf-connecting-ip": "203.0.113.9", "user-agent": "Borrower Phone/1.0" });
    expect(res.status).toBe(200);
    const givenAt = res.body.data.consent.given_at as string;
    expect(Date.parse(givenAt)).not.toBeNaN();
    expect(res.body.data.consent).toMatchObject({ required: true, disclosure: { version: 1, text: DISCLOSURE.text } });
    // a repeat changes nothing: same time, one audit entry
    const again = await consent(e.buyer, { agree: true });
    expect(again.status).toBe(200);
    expect(again.body.data.consent.given_at).toBe(givenAt);
    const entries = (await auditOf(e.envelopeId)).filter((a) => a.action === "signer.consented");
    expect(entries).toHaveLength(1);
    expect(entries[0]!.actor_type).toBe("signer");
    expect(entries[0]!.data).toMatchObject({
      disclosure: { version: 1, sha256: t.disclosure.sha256 },
      consented_at: givenAt,
      ip: "203.0.113.9",
      user_agent: "Borrower Phone/1.0",
      signer: { role: "buyer", email: "ann@example.com" },
    });
    expect((await signing("GET", e.buyer)).body.data.consent.given_at).toBe(givenAt);

    // the document opens for the buyer who consented, not for the cosigner who has not
    expect((await signing("GET", e.buyer, "document")).status).toBe(200);
    expect((await signing("POST", e.buyer, "submit", { values: BUYER_VALUES })).status).toBe(200);
    expect((await signing("GET", e.cosigner, "document")).body.code).toBe("consent_required");
    expect((await consent(e.cosigner, { agree: true })).status).toBe(200);
    const done = await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: TINY_PNG } });
    expect(done.status).toBe(200);
    expect(done.body.data.envelope_status).toBe("completed");

    // the certificate names §7001(c) with each signer's time of consent
    const vaulted = await call("POST", `/partner/envelopes/${e.envelopeId}/vault-in-signed`, { key: t.key, body: {} });
    expect(vaulted.status).toBe(200);
    const cert = await call("GET", `/partner/envelopes/${e.envelopeId}/vault/certificate`, { key: t.key });
    expect(cert.status).toBe(200);
    const esign = cert.body.data.esign_act_compliance;
    const rows = await signerRows(e.envelopeId);
    expect(esign.compliant).toBe(true);
    expect(esign.consumer_consent).toEqual({
      required: true,
      citation: "15 U.S.C. §7001(c)",
      disclosure_version: 1,
      disclosure_sha256: t.disclosure.sha256,
      signers: [
        { role: "buyer", name: "Ann Buyer", consented_at: givenAt },
        { role: "cosigner", name: "Cole Signer", consented_at: rows[1]!.consent_given_at },
      ],
    });
    // and the certificate's PDF prints them
    const url = await call("GET", `/partner/envelopes/${e.envelopeId}/vault/certificate/signed-url`, { key: t.key });
    const pdf = (await pageTexts((await download(url.body.data.signed_url)).bytes)).join("\n").replace(/\s+/g, " ");
    expect(pdf).toContain("Consumer consent (15 U.S.C. §7001(c))");
    expect(pdf).toContain(t.disclosure.sha256);
    expect(pdf).toContain(`Ann Buyer (buyer): consented at ${givenAt}`);
  });

  it("withdrawal declines the envelope with reason consent_withdrawn, recorded before the decline", async () => {
    const t = await consentTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    expect((await consent(e.buyer, { agree: true })).status).toBe(200);
    const res = await consent(e.buyer, { agree: false }, { "cf-connecting-ip": "203.0.113.10" });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ signer_status: "declined", envelope_status: "declined" });
    expect((await call("GET", `/partner/envelopes/${e.envelopeId}`, { key: t.key })).body.data.status).toBe("declined");
    const actions = (await auditOf(e.envelopeId)).map((a) => a.action);
    expect(actions.slice(-3)).toEqual(["signer.consent_withdrawn", "signer.declined", "envelope.decline"]);
    const withdrawn = (await auditOf(e.envelopeId)).find((a) => a.action === "signer.consent_withdrawn")!;
    expect(withdrawn.data).toMatchObject({ disclosure: { version: 1, sha256: t.disclosure.sha256 }, ip: "203.0.113.10" });
    expect(withdrawn.data.consent_given_at).not.toBeNull();
    const declined = (await eventsOf(e.envelopeId)).filter((ev) => ev.type === "signer.declined" || ev.type === "envelope.declined");
    expect(declined.map((ev) => ev.type)).toEqual(["signer.declined", "envelope.declined"]);
    expect(declined[0]!.data.reason).toBe("consent_withdrawn");
    // every link of the envelope stops working, as after any decline
    expect((await signing("GET", e.cosigner)).status).toBe(410);
    expect((await consent(e.buyer, { agree: true })).status).toBe(410);
  });

  it("a signer may refuse consent without ever giving it: the envelope is declined", async () => {
    const t = await consentTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    const res = await consent(e.cosigner, { agree: false });
    expect(res.status).toBe(200);
    expect(res.body.data.envelope_status).toBe("declined");
    const withdrawn = (await auditOf(e.envelopeId)).find((a) => a.action === "signer.consent_withdrawn")!;
    expect(withdrawn.data.consent_given_at).toBeNull();
  });

  it("refuses a body that is not {agree: boolean} with 422, changing nothing", async () => {
    const t = await consentTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    for (const body of [{}, { agree: "yes" }, { agree: 1 }, { agree: null }, { agree: true, extra: 1 }]) {
      const res = await consent(e.buyer, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBeTruthy();
      expect(res.body.details).toBeTruthy();
    }
    expect((await signerRows(e.envelopeId))[0]!.consent_given_at).toBeNull();
    expect((await auditOf(e.envelopeId)).some((a) => a.action.startsWith("signer.consent"))).toBe(false);
  });

  it("an envelope of an organization not requiring consent shows consent: null, opens the document and answers 409 to a consent", async () => {
    const t = await consentTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    const plain = await newTenant();
    const p = await sentTwoSignerEnvelope(plain.key);
    for (const slug of [p.buyer]) {
      const page = await signing("GET", slug);
      expect(page.body.data.consent).toBeNull();
      expect((await signing("GET", slug, "document")).status).toBe(200);
      const res = await consent(slug, { agree: true });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("consent_not_required");
    }
    expect((await signing("GET", e.buyer)).body.data.consent).not.toBeNull();
  });

  it("after the signer has signed, withdrawal is refused with 409 (as decline is)", async () => {
    const t = await consentTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    expect((await consent(e.buyer, { agree: true })).status).toBe(200);
    expect((await signing("POST", e.buyer, "submit", { values: BUYER_VALUES })).status).toBe(200);
    expect((await consent(e.buyer, { agree: false })).status).toBe(409);
    expect((await consent(e.buyer, { agree: true })).status).toBe(200);
    expect((await call("GET", `/partner/envelopes/${e.envelopeId}`, { key: t.key })).body.data.status).not.toBe("declined");
  });

  it("the signer sees the disclosure version pinned at create, not one saved later", async () => {
    const t = await consentTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    const v2 = await call("PUT", "/org/esign-disclosure", { bearer: t.admin, body: { ...DISCLOSURE, text: "A newer text" } });
    expect(v2.body.data.version).toBe(2);
    expect((await signing("GET", e.buyer)).body.data.consent.disclosure).toMatchObject({ version: 1, text: DISCLOSURE.text });
    await consent(e.buyer, { agree: true });
    const entry = (await auditOf(e.envelopeId)).find((a) => a.action === "signer.consented")!;
    expect(entry.data.disclosure).toEqual({ version: 1, sha256: t.disclosure.sha256 });
  });

  it("on a KBA envelope, identity comes first: consent answers 403 kba_required until the signer passes", async () => {
    const t = await consentTenant();
    const bearer = await memberToken(t.orgId, "admin");
    const template = await consoleTemplate(bearer, { kba: true, pages: [{ lines: [{ text: "Sign {{buyer_signature;type=signature;role=buyer;required=true}}", x: 72, y: 700 }] }] });
    const created = await createEnvelope(t.key, { template_id: template.template_id, consumer_consent: true });
    const email = `jane.${crypto.randomUUID().slice(0, 8)}@example.com`;
    const sent = await sendEnvelope(t.key, created.envelope_id, { signers: [{ role: "buyer", email, name: "Jane Buyer" }] });
    expect(sent.status).toBe(200);
    const slug = await invitationSlug(created.envelope_id, email);
    const early = await consent(slug, { agree: true });
    expect(early.status).toBe(403);
    expect(early.body.code).toBe("kba_required");
    expect((await consent(slug, { agree: false })).body.code).toBe("kba_required");
    expect((await takeKba(slug, email)).res.status).toBe(200);
    // KBA passed, consent still missing
    expect((await signing("GET", slug, "document")).body.code).toBe("consent_required");
    expect((await consent(slug, { agree: true })).status).toBe(200);
    expect((await signing("GET", slug, "document")).status).toBe(200);
  });

  it("a correction of the signer starts consent over: the new link shows no consent and the document is closed again", async () => {
    const t = await consentTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    expect((await consent(e.buyer, { agree: true })).status).toBe(200);
    const signerId = (await signerRows(e.envelopeId))[0]!.id as string;
    const res = await call("PATCH", `/partner/envelopes/${e.envelopeId}/signers/${signerId}`, { key: t.key, body: { name: "Ann Q. Buyer" } });
    expect(res.status).toBe(200);
    expect((await signerRows(e.envelopeId))[0]!.consent_given_at).toBeNull();
    const invitations = (await outboxOf(e.envelopeId)).filter((m) => m.kind === "invitation" && m.to_email === "ann@example.com");
    expect(invitations.length).toBe(2);
    const opened = await openOutboxEmail(env, invitations.at(-1)!);
    const fresh = new URL(opened!.linkUrl!).pathname.split("/").pop()!;
    const page = await signing("GET", fresh);
    expect(page.status).toBe(200);
    expect(page.body.data.consent.given_at).toBeNull();
    expect((await signing("GET", fresh, "document")).body.code).toBe("consent_required");
    const corrected = (await auditOf(e.envelopeId)).find((a) => a.action === "signer.corrected")!;
    expect(corrected.data.consent_restarted).toBe(true);
    expect((await consent(fresh, { agree: true })).status).toBe(200);
    expect((await signing("GET", fresh, "document")).status).toBe(200);
  });
});

describe("envelope create: consumer_consent", () => {
  it("defaults to the organization's required, can be set either way, and pins the shipped default when none is saved", async () => {
    const plain = await newTenant();
    const none = await createEnvelope(plain.key);
    expect(none.consumer_consent).toBe(false);
    const asked = await createEnvelope(plain.key, { consumer_consent: true });
    expect(asked.consumer_consent).toBe(true);
    const pinnedId = await shardDbOf(asked.envelope_id).prepare("SELECT disclosure_id FROM envelopes WHERE id = ?").bind(asked.envelope_id).first<string>("disclosure_id");
    const pinned = await globalDb.prepare("SELECT version, sha256 FROM esign_disclosures WHERE id = ?").bind(pinnedId).first<{ version: number; sha256: string }>();
    const current = await call("GET", "/org/esign-disclosure", { bearer: await adminToken(plain.orgId) });
    expect(pinned).toEqual({ version: 0, sha256: current.body.data.sha256 });
    expect(current.body.data).toMatchObject({ version: 0, is_default: true });

    const t = await consentTenant();
    expect((await createEnvelope(t.key)).consumer_consent).toBe(true);
    const optedOut = await createEnvelope(t.key, { consumer_consent: false });
    expect(optedOut.consumer_consent).toBe(false);
    const row = await shardDbOf(optedOut.envelope_id).prepare("SELECT disclosure_id FROM envelopes WHERE id = ?").bind(optedOut.envelope_id).first<{ disclosure_id: string | null }>();
    expect(row?.disclosure_id).toBeNull();

    const bad = await call("POST", "/partner/envelopes", { key: t.key, body: { envelope_name: "x", customer_email: "a@example.com", customer_name: "A", consumer_consent: "yes" } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body.details)).toContain("consumer_consent");
  });
});

describe("bulk send: consumer_consent", () => {
  it("each bulk envelope follows the organization's required disclosure and pins its current version", async () => {
    const t = await bulkTenant();
    const saved = await call("PUT", "/org/esign-disclosure", { bearer: await adminToken(t.orgId), body: DISCLOSURE });
    expect(saved.status).toBe(200);
    const customers = await seedCustomers(t.orgId, 2);
    const { batchId } = await readyBatch(t, { customers });
    expect((await t.as("POST", `/bulk-send/${batchId}/submit`)).status).toBe(202);
    expect((await runToEnd(batchId)).status).toBe("completed");
    const { results: pinnedRows } = await shardDbOf(batchId)
      .prepare("SELECT e.consumer_consent, e.disclosure_id FROM bulk_items i JOIN envelopes e ON e.id = i.envelope_id WHERE i.batch_id = ?")
      .bind(batchId)
      .all<{ consumer_consent: number; disclosure_id: string | null }>();
    const results = await Promise.all(
      pinnedRows.map(async (r) => ({
        consumer_consent: r.consumer_consent,
        version: r.disclosure_id ? await globalDb.prepare("SELECT version FROM esign_disclosures WHERE id = ?").bind(r.disclosure_id).first<number>("version") : null,
      })),
    );
    expect(results).toEqual([
      { consumer_consent: 1, version: 1 },
      { consumer_consent: 1, version: 1 },
    ]);
  });
});
