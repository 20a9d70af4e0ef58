import { describe, expect, it } from "vitest";
import { renderCertificatePdf } from "../../../src/pdf";
import { getEnvelope } from "../../../src/services/envelopes/repository";
import { buildCertificate } from "../../../src/services/vault/certificate";
import { factsFrom } from "../../../src/services/vault/compliance-checks";
import { NO_CONSENT } from "../../../src/services/vault/consumer-consent";
import { newTenant } from "../../helpers/api";
import { pageTexts } from "../../helpers/pdf";
import { completedEnvelope } from "../../helpers/vault";
import { shardDbOf } from "../../helpers/shards";

async function certificateWith(consent: Parameters<typeof buildCertificate>[4]) {
  const t = await newTenant({ name: "Sunrise Motors" });
  const e = await completedEnvelope(t.key);
  const envelope = await getEnvelope(shardDbOf(e.envelope_id), t.orgId, e.envelope_id);
  const facts = factsFrom(
    envelope,
    {
      vaultId: "vlt_consent",
      documentHash: e.hash,
      custodianOrgId: t.orgId,
      copyMarked: true,
      lastIntegrityMatched: true,
      control: { originatorName: "Sunrise Motors", controllerOrgId: null, controllerName: null, pledgorOrgId: null, pledgorName: null, status: "active", transferCount: 0 },
      audit: { changes: 0, pledgeReleases: 0, unauthorized: 0 },
    },
    true,
  );
  return buildCertificate(envelope, facts, [], new Date().toISOString(), consent);
}

describe("the certificate's E-SIGN consumer consent (§7001(c))", () => {
  it("an envelope that did not ask for consent says so and stays E-SIGN compliant on its retention checks", async () => {
    const cert = await certificateWith(NO_CONSENT);
    expect(cert.esign_act_compliance).toMatchObject({ compliant: true, consumer_consent: { required: false, citation: "15 U.S.C. §7001(c)", signers: [] } });
    expect((await pageTexts(await renderCertificatePdf(cert))).join("\n").replace(/\s+/g, " ")).toContain("not asked on this envelope");
  });

  it("is not E-SIGN compliant when consent was required and a signer has no consent time, and the PDF says so", async () => {
    const consent = {
      required: true,
      citation: "15 U.S.C. §7001(c)" as const,
      disclosure_version: 3,
      disclosure_sha256: "ab".repeat(32),
      signers: [
        { role: "buyer", name: "Ann Buyer", consented_at: "2026-11-20T10:00:00.000Z" },
        { role: "cosigner", name: "Cole Signer", consented_at: null },
      ],
    };
    const cert = await certificateWith(consent);
    expect(cert.esign_act_compliance.compliant).toBe(false);
    // the eight UCC checks do not move with it
    expect(cert.ucc_9105_compliance.compliant).toBe(true);
    const text = (await pageTexts(await renderCertificatePdf(cert))).join("\n").replace(/\s+/g, " ");
    expect(text).toContain("Cole Signer (cosigner): NO consent recorded");
    expect(text).toContain("disclosure version 3");
    const all = await certificateWith({ ...consent, signers: [consent.signers[0]!] });
    expect(all.esign_act_compliance.compliant).toBe(true);
  });
});
