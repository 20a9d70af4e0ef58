import { describe, expect, it } from "vitest";
import { call, createEnvelope, newKey, newTenant } from "../helpers/api";
import { auditOf, sentKbaEnvelope } from "../helpers/kba";
import { sendEnvelope, signerRows } from "../helpers/signing";
import { sentTwoSignerEnvelope, signing, TINY_PNG } from "../helpers/signing-flow";
import { consoleTemplate } from "../helpers/templates";
import { adminToken } from "../helpers/webhooks";

/**
 * GET …/signing-links needs only `envelopes:read` (spec), but a key without `esign:write` must not be
 * able to sign for anyone: its links are view-only sessions. They show what the signer sees, behind the
 * same KBA and consent gates, and act on nothing.
 */
const links = (key: string, envelopeId: string) => call("GET", `/partner/envelopes/${envelopeId}/signing-links`, { key });

function expectViewOnlyRefusal(res: { status: number; body: any }, what: string) {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(403);
  expect(res.body.code).toBe("view_only_session");
  expect(res.body.error).toContain("esign:write");
  expect(res.body.details.required_scope).toBe("esign:write");
}

describe("signing links handed to a key without esign:write are view-only", () => {
  it("a read-only key sees the signer's page and document but cannot record a view, submit or decline; the envelope stays untouched", async () => {
    const t = await newTenant();
    const flow = await sentTwoSignerEnvelope(t.key, { parallel: true });
    const { key: reader } = await newKey(t.orgId, ["envelopes:read"]);
    const res = await links(reader, flow.envelopeId);
    expect(res.status).toBe(200);
    const ann = res.body.data.signers.find((s: { email: string }) => s.email === "ann@example.com");
    expect(ann.view_only).toBe(true);

    const page = await signing("GET", ann.slug);
    expect(page.status).toBe(200);
    expect(page.body.data.view_only).toBe(true);
    expect(page.body.data.fields.map((f: { name: string }) => f.name)).toContain("buyer_signature");
    expect((await signing("GET", ann.slug, "document")).status).toBe(200);

    expectViewOnlyRefusal(await signing("POST", ann.slug, "view"), "view");
    expectViewOnlyRefusal(await signing("POST", ann.slug, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Not Ann" } }), "submit");
    expectViewOnlyRefusal(await signing("POST", ann.slug, "decline", { reason: "a read-only key tries to decline" }), "decline");

    expect((await signerRows(flow.envelopeId)).map((s) => [s.status, s.viewed_at])).toEqual([
      ["pending", null],
      ["pending", null],
    ]);
    const envelope = await call("GET", `/partner/envelopes/${flow.envelopeId}`, { key: t.key });
    expect(envelope.body.data.status).toBe("sent");
    expect((await auditOf(flow.envelopeId)).map((a) => a.action)).not.toContain("signer.viewed");
  });

  it("a key with esign:write still gets sessions that sign", async () => {
    const t = await newTenant();
    const flow = await sentTwoSignerEnvelope(t.key, { parallel: true });
    const { key: writer } = await newKey(t.orgId, ["envelopes:read", "esign:write"]);
    const ann = (await links(writer, flow.envelopeId)).body.data.signers.find((s: { email: string }) => s.email === "ann@example.com");
    expect(ann.view_only).toBe(false);
    expect((await signing("GET", ann.slug)).body.data.view_only).toBe(false);
    const submitted = await signing("POST", ann.slug, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer" } });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
  });

  it("a view-only session answers no KBA question and gives no consent: the gates stay shut for it", async () => {
    const kba = await sentKbaEnvelope();
    const { key: reader } = await newKey(kba.orgId, ["envelopes:read"]);
    const [buyer] = (await links(reader, kba.envelopeId)).body.data.signers;
    expect((await signing("GET", buyer.slug, "document")).body.code).toBe("kba_required");
    expectViewOnlyRefusal(await signing("GET", buyer.slug, "kba"), "kba questions");
    expectViewOnlyRefusal(await signing("POST", buyer.slug, "kba", { session_id: "kbas_8k2m4p6r8t0v2x4z6b8d0f2h4j", answers: [{ question_id: "vehicle_make", choice_id: "vehicle_make.a" }] }), "kba answer");
    expect((await auditOf(kba.envelopeId)).map((a) => a.action).filter((a) => a.startsWith("kba."))).toEqual([]);

    const t = await newTenant({ name: "Prairie Auto Finance" });
    const admin = await adminToken(t.orgId);
    const saved = await call("PUT", "/org/esign-disclosure", {
      bearer: admin,
      body: { required: true, text: "Consent to electronic records.", paper_copy_contact: "Call (555) 010-2000.", withdrawal_instructions: "Call (555) 010-2000." },
    });
    expect(saved.status).toBe(200);
    const template = await consoleTemplate(admin, { pages: [{ lines: [{ text: "Sign {{buyer_signature;type=signature;role=buyer;required=true}}", x: 72, y: 700 }] }] });
    const created = await createEnvelope(t.key, { template_id: template.template_id, consumer_consent: true });
    expect((await sendEnvelope(t.key, created.envelope_id, { signers: [{ role: "buyer", email: "jo@example.com", name: "Jo Buyer" }] })).status).toBe(200);
    const { key: reader2 } = await newKey(t.orgId, ["envelopes:read"]);
    const [jo] = (await links(reader2, created.envelope_id)).body.data.signers;
    // before the signer consented the document is closed to a view-only session too
    expect((await signing("GET", jo.slug, "document")).body.code).toBe("consent_required");
    expectViewOnlyRefusal(await signing("POST", jo.slug, "consent", { agree: true }), "consent");
    expectViewOnlyRefusal(await signing("POST", jo.slug, "consent", { agree: false }), "withdrawal");
    expect((await signerRows(created.envelope_id))[0]!.consent_given_at).toBeNull();
  });
});
