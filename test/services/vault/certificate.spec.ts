import { describe, expect, it } from "vitest";
import { renderCertificatePdf } from "../../../src/pdf";
import { getEnvelope } from "../../../src/services/envelopes/repository";
import { buildCertificate } from "../../../src/services/vault/certificate";
import { factsFrom } from "../../../src/services/vault/compliance-checks";
import { newTenant } from "../../helpers/api";
import { pageTexts } from "../../helpers/pdf";
import { completedEnvelope } from "../../helpers/vault";
import { shardDbOf } from "../../helpers/shards";

describe("the certificate's control block", () => {
  it("names the controller, the pledgor and the transfers of a pledged record, in the JSON and the PDF", async () => {
    const t = await newTenant({ name: "Sunrise Motors" });
    const e = await completedEnvelope(t.key);
    const envelope = await getEnvelope(shardDbOf(e.envelope_id), t.orgId, e.envelope_id);
    const facts = factsFrom(
      envelope,
      {
        vaultId: "vlt_pledged",
        documentHash: e.hash,
        custodianOrgId: t.orgId,
        copyMarked: true,
        lastIntegrityMatched: true,
        control: {
          originatorName: "Sunrise Motors",
          controllerOrgId: "org_warehouse",
          controllerName: "Warehouse Bank",
          pledgorOrgId: "org_lender",
          pledgorName: "First Auto Finance",
          status: "active",
          transferCount: 2,
        },
        audit: { changes: 2, pledgeReleases: 0, unauthorized: 0 },
      },
      true,
    );
    const cert = buildCertificate(envelope, facts, [], new Date().toISOString());
    expect(cert.control).toEqual({
      originator: { org_id: t.orgId, name: "Sunrise Motors" },
      controller: { org_id: "org_warehouse", name: "Warehouse Bank" },
      pledgor: { org_id: "org_lender", name: "First Auto Finance" },
      status: "active",
      transfer_count: 2,
      retain_until: null,
      destroyed_at: null,
      legal_holds: [],
    });
    const text = (await pageTexts(await renderCertificatePdf(cert))).join("\n");
    expect(text).toContain("Controller: Warehouse Bank (org_warehouse)");
    expect(text).toContain("Pledgor: First Auto Finance (org_lender)");
    expect(text).toContain("Transfers of control: 2");

    const closed = buildCertificate(envelope, { ...facts, control: { ...facts.control, pledgorOrgId: null, pledgorName: null, status: "paper_out" } }, [], new Date().toISOString());
    expect(closed.control.pledgor).toBeNull();
    const closedText = (await pageTexts(await renderCertificatePdf(closed))).join("\n");
    expect(closedText).toContain("Pledgor: none");
    expect(closedText).toContain("converted to paper");
  });

  it("still renders a certificate issued before control could move (no control block)", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    const envelope = await getEnvelope(shardDbOf(e.envelope_id), t.orgId, e.envelope_id);
    const { control: _omitted, ...legacy } = buildCertificate(envelope, factsFrom(envelope, null, true), [], new Date().toISOString());
    const text = (await pageTexts(await renderCertificatePdf(legacy))).join("\n");
    expect(text).toContain("Certificate of Compliance");
    expect(text).not.toContain("Controller:");
  });
});
