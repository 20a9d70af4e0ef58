import { describe, expect, it } from "vitest";
import { kbaStep, sentKbaEnvelope, takeKba } from "../helpers/kba";
import { bulkTenant } from "../helpers/bulk";
import { templateWithRoles } from "../helpers/signing";
import { signing } from "../helpers/signing-flow";
import { consoleTemplate } from "../helpers/templates";
import { shardDbOf } from "../helpers/shards";

describe("before KBA is passed, the link shows nobody else", () => {
  it("GET /signing/:slug names only the signer themself until they pass, then the other signers' progress", async () => {
    const s = await sentKbaEnvelope({ dealerIsSender: true });
    const before = await signing("GET", s.buyer);
    expect(before.status).toBe(200);
    expect(before.body.data.signers).toEqual([{ name: "Jane Buyer", role: "buyer", routing_order: 1, status: expect.any(String), is_you: true }]);
    const text = JSON.stringify(before.body);
    expect(text).not.toContain("Dana Dealer");
    expect(text.toLowerCase()).not.toContain(s.dealerEmail);

    await takeKba(s.buyer, s.buyerEmail);
    const after = await signing("GET", s.buyer);
    expect(after.body.data.signers.map((x: { name: string; is_you: boolean }) => [x.name, x.is_you])).toEqual([
      ["Jane Buyer", true],
      ["Dana Dealer", false],
    ]);
  });
});

describe("only the sender skips KBA", () => {
  it("challenges a member of the organization who is not the sender (a partner key's send has no sender to spare)", async () => {
    const s = await sentKbaEnvelope({ dealerIsMember: true });
    const checks = await shardDbOf(s.envelopeId).prepare("SELECT s.role FROM kba_checks c JOIN signers s ON s.id = c.signer_id WHERE c.envelope_id = ? ORDER BY s.role").bind(s.envelopeId).all();
    expect(checks.results).toEqual([{ role: "buyer" }, { role: "dealer" }]);
    const sendEntry = await shardDbOf(s.envelopeId).prepare("SELECT data FROM audit_log WHERE chain_id = ? AND action = 'envelope.send'").bind(s.envelopeId).first<{ data: string }>();
    expect(JSON.parse(sendEntry!.data).kba.challenged.map((e: string) => e.toLowerCase())).toEqual([s.buyerEmail, s.dealerEmail]);
  });

  it("spares the member who sends from the console and signs too, and nobody else", async () => {
    const s = await sentKbaEnvelope({ dealerIsSender: true });
    expect((await signing("GET", s.buyer)).body.data.kba).toEqual({ required: true, status: "required" });
    expect((await kbaStep(s.dealer)).status).toBe(404);
  });
});

describe("a bulk batch's master template cannot change its KBA", () => {
  const batchKba = (id: string) =>
    shardDbOf(id).prepare("SELECT kba_required, provider_instance, master_template_id FROM bulk_batches WHERE id = ?").bind(id).first<{ kba_required: number; provider_instance: string; master_template_id: string | null }>();
  const SIGN = (role: string) => `Sign {{${role}_signature;type=signature;role=${role};required=true}}`;

  it("PATCH master_template_id to a template without KBA on a KBA batch is 409 kba_immutable, and the batch keeps KBA", async () => {
    const t = await bulkTenant();
    const kbaTemplate = await consoleTemplate(t.admin, { kba: true, pages: [{ lines: [{ text: SIGN("client"), x: 72, y: 700 }] }] });
    const plainTemplateId = await templateWithRoles(t.key, ["client"]);
    const batch = await t.as("POST", "/bulk-send", { name: "KBA addendum", document_source: "template", source_template_id: kbaTemplate.template_id });
    expect(batch.body.data).toMatchObject({ kba_required: true });
    const id = batch.body.data.batch_id as string;
    expect((await t.as("POST", "/esign/builder-session", { batch_id: id })).status).toBe(201);

    const res = await t.as("PATCH", `/bulk-send/${id}`, { master_template_id: plainTemplateId });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "kba_immutable" });
    expect(typeof res.body.error).toBe("string");
    const after = await batchKba(id);
    expect(after).toMatchObject({ kba_required: 1, provider_instance: "cloud" });
    expect(after!.master_template_id).not.toBe(plainTemplateId);

    // another KBA template is a fine master
    const other = await consoleTemplate(t.admin, { kba: true, pages: [{ lines: [{ text: SIGN("client"), x: 72, y: 700 }] }] });
    const ok = await t.as("PATCH", `/bulk-send/${id}`, { master_template_id: other.template_id });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ kba_required: true, master_template_id: other.template_id });
  });

  it("a batch without KBA cannot take a KBA master either (409 kba_immutable)", async () => {
    const t = await bulkTenant();
    const plainTemplateId = await templateWithRoles(t.key, ["client"]);
    const kbaTemplate = await consoleTemplate(t.admin, { kba: true, pages: [{ lines: [{ text: SIGN("client"), x: 72, y: 700 }] }] });
    const batch = await t.as("POST", "/bulk-send", { name: "Plain addendum", document_source: "template", source_template_id: plainTemplateId });
    const res = await t.as("PATCH", `/bulk-send/${batch.body.data.batch_id}`, { master_template_id: kbaTemplate.template_id });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "kba_immutable" });
    expect(await batchKba(batch.body.data.batch_id)).toMatchObject({ kba_required: 0, master_template_id: null });
  });
});
