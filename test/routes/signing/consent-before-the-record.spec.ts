import { describe, expect, it } from "vitest";
import { call, newTenant } from "../../helpers/api";
import { BUYER, embedToken, paymentIntent, payingTenant, sentPayEnvelope, sign } from "../../helpers/payments";
import { sentTwoSignerEnvelope, signing } from "../../helpers/signing-flow";
import { adminToken } from "../../helpers/webhooks";

/**
 * Review of issue 24 against docs/consumer-signing.md (15 U.S.C. §7001(c)): what a consumer sees of the contract
 * before consenting to electronic records, on every path.
 */
const DISCLOSURE = {
  required: true,
  text: "Prairie Auto Finance: consent to electronic records. You may ask for paper copies; you may withdraw.",
  paper_copy_contact: "Call (555) 010-2000; paper copies are free.",
  withdrawal_instructions: "Choose Withdraw consent, or call (555) 010-2000.",
};

async function requireConsent(orgId: string) {
  const saved = await call("PUT", "/org/esign-disclosure", { bearer: await adminToken(orgId), body: DISCLOSURE });
  expect(saved.status).toBe(200);
}

describe("consent before any of the contract's contents (review of docs/consumer-signing.md)", () => {
  it("GET /signing/:slug shows no fields or prefilled values before consent, and the signer's fields after it", async () => {
    const t = await newTenant({ name: "Prairie Auto Finance" });
    await requireConsent(t.orgId);
    const e = await sentTwoSignerEnvelope(t.key);

    const before = await signing("GET", e.buyer);
    expect(before.status).toBe(200);
    expect(before.body.data.consent).toMatchObject({ required: true, given_at: null });
    // the contract's terms (here the prefilled VIN) are the electronic record: not shown before consent
    expect(before.body.data.fields).toEqual([]);
    expect(JSON.stringify(before.body.data)).not.toContain("1HGCM82633A004352");

    expect((await signing("POST", e.buyer, "consent", { agree: true })).status).toBe(200);
    const after = await signing("GET", e.buyer);
    expect(after.body.data.fields.map((f: { name: string }) => f.name).sort()).toEqual(["buyer_date", "buyer_name", "buyer_signature", "buyer_vin"]);
    expect(after.body.data.fields.find((f: { name: string }) => f.name === "buyer_vin").value).toBe("1HGCM82633A004352");
  });

  it("the embed payment step (POST /embed/payment-intent) answers 403 consent_required until the payer consented", async () => {
    const t = await payingTenant();
    await requireConsent(t.orgId);
    const e = await sentPayEnvelope(t.key);
    const payerToken = (await embedToken(t.key, e.envelopeId, BUYER.email)).body.data.token as string;

    const refused = await paymentIntent(payerToken);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("consent_required");

    expect((await signing("POST", e.buyer, "consent", { agree: true })).status).toBe(200);
    expect((await sign(e.buyer, "buyer")).status).toBe(200);
    const intent = await paymentIntent(payerToken);
    expect(intent.status).toBe(200);
    expect(intent.body.data).toMatchObject({ payment_required: true, amount_cents: 150_000 });
  });
});
