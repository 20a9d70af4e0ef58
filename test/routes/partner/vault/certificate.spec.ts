import { describe, expect, it } from "vitest";
import { call, createEnvelope, newTenant } from "../../../helpers/api";
import { pageTexts } from "../../../helpers/pdf";
import { completedEnvelope, download } from "../../../helpers/vault";

describe("GET /partner/envelopes/:id/vault/certificate", () => {
  it("answers 404 before the certificate is generated, then serves every field of the spec", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    const before = await call("GET", `/partner/envelopes/${e.envelope_id}/vault/certificate`, { key: t.key });
    expect(before.status).toBe(404);
    expect(before.body.error).toMatch(/Compliance certificate/);
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.compliant).toBe(false);

    await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} });
    const res = await call("GET", `/partner/envelopes/${e.envelope_id}/vault/certificate`, { key: t.key });
    expect(res.status).toBe(200);
    const cert = res.body.data;
    expect(Object.keys(cert).sort()).toEqual(
      ["certificate_type", "certificate_version", "control", "document_integrity", "esign_act_compliance", "identity_verification", "issued_at", "secured_party", "subject", "ucc_9105_compliance"].sort(),
    );
    expect(cert.ucc_9105_compliance.checks.map((c: { requirement: string; ucc_reference: string }) => [c.requirement, c.ucc_reference])).toEqual([
      ["single_authoritative_copy", "UCC §9-105(b)(1)"],
      ["unique_identifiable", "UCC §9-105(b)(1)"],
      ["unalterable", "UCC §9-105(b)(1)"],
      ["custody_by_secured_party", "UCC §9-105(b)(3)"],
      ["controlled_amendments", "UCC §9-105(b)(4)"],
      ["copies_identifiable", "UCC §9-105(b)(5)"],
      ["revisions_identifiable", "UCC §9-105(b)(6)"],
      ["secured_party_identified", "UCC §9-105(b)(2)"],
    ]);
    // no consumer consent asked: the certificate says so rather than naming a consent that was never given
    expect(cert.esign_act_compliance).toEqual({
      act: expect.stringContaining("E-SIGN"),
      citation: "15 U.S.C. §7001(d)",
      compliant: true,
      consumer_consent: { required: false, citation: "15 U.S.C. §7001(c)", disclosure_version: null, disclosure_sha256: null, signers: [] },
    });
    // the seeded document carries no seal of the service: the certificate names no evidence level
    expect(cert.document_integrity).toEqual({ hash_algorithm: "SHA-256", document_hash: e.hash });
    const detail = await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key });
    expect(detail.body.data).toMatchObject({ vaulted: true, compliant: true });
  });

  it("names the originator as controller, no pledgor and 0 transfers of control after vault-in, in the JSON and the PDF", async () => {
    const t = await newTenant({ name: "Sunrise Motors" });
    const e = await completedEnvelope(t.key);
    expect((await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} })).status).toBe(200);
    const cert = (await call("GET", `/partner/envelopes/${e.envelope_id}/vault/certificate`, { key: t.key })).body.data;
    const sunrise = { org_id: t.orgId, name: "Sunrise Motors" };
    expect(cert.control).toEqual({ originator: sunrise, controller: sunrise, pledgor: null, status: "active", transfer_count: 0, retain_until: null, destroyed_at: null, legal_holds: [] });
    const custody = cert.ucc_9105_compliance.checks.find((c: { requirement: string }) => c.requirement === "custody_by_secured_party");
    expect(custody.detail).toBe(`The copy is held by the service as custodian for Sunrise Motors (${t.orgId})`);

    const url = await call("GET", `/partner/envelopes/${e.envelope_id}/vault/certificate/signed-url`, { key: t.key });
    const text = (await pageTexts((await download(url.body.data.signed_url)).bytes)).join("\n");
    expect(text).toContain(`Controller: Sunrise Motors (${t.orgId})`);
    expect(text).toContain("Pledgor: none");
    expect(text).toContain("Transfers of control: 0");
    expect(text).toContain(`Originator: Sunrise Motors (${t.orgId})`);
  });

  it("answers 404 for an envelope of another organization or none", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const e = await createEnvelope(other.key);
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}/vault/certificate`, { key: t.key })).status).toBe(404);
  });
});
