import { describe, expect, it } from "vitest";
import { call, envelopeBody, newTenant } from "../../../helpers/api";
import { absolute, buildPdf, uploadTemplate } from "../../../helpers/templates";
import { globalDb, orgShardDb, shardDbOf } from "../../../helpers/shards";

async function contractTemplate(key: string) {
  const { bytes } = await buildPdf([{ lines: [{ text: "Vehicle: {{vin;type=text;role=buyer}}", x: 72, y: 700 }] }, { lines: [{ text: "Sign", x: 72, y: 200 }] }]);
  const res = await uploadTemplate(key, {
    file: bytes,
    fields: [
      absolute("down_payment", [{ page: 1, x: 0.5, y: 0.2, w: 0.2, h: 0.03 }], { type: "number", default_value: "0" }),
      absolute("agree", [{ page: 2, x: 0.1, y: 0.1, w: 0.03, h: 0.03 }], { type: "checkbox" }),
      absolute("buyer_signature", [{ page: 2, x: 0.1, y: 0.7, w: 0.3, h: 0.05 }], { required: true }),
    ],
  });
  expect(res.status).toBe(200);
  return res.body.data.template_id as string;
}

const create = (key: string, overrides: Record<string, unknown>) => call("POST", "/partner/envelopes", { key, body: envelopeBody(overrides) });

describe("POST /partner/envelopes with template_id", () => {
  it("copies the template's document and fields onto the envelope, with prefilled_data applied by field name", async () => {
    const t = await newTenant();
    const templateId = await contractTemplate(t.key);
    const res = await create(t.key, { template_id: templateId, prefilled_data: { vin: "1HGCM82633A004352", down_payment: 2500, agree: true } });
    expect(res.status).toBe(201);
    const e = res.body.data;
    expect(e).toMatchObject({ status: "pending", template_id: templateId, kba_required: false, provider_instance: "default", metadata: { document_source: "template", source_template_id: templateId } });
    const fields = await shardDbOf(e.envelope_id).prepare("SELECT name, type, value, default_value, source_template_id FROM envelope_fields WHERE envelope_id = ? ORDER BY seq").bind(e.envelope_id).all();
    expect(fields.results).toEqual([
      { name: "vin", type: "text", value: "1HGCM82633A004352", default_value: null, source_template_id: templateId },
      { name: "down_payment", type: "number", value: "2500", default_value: "0", source_template_id: templateId },
      { name: "agree", type: "checkbox", value: "true", default_value: null, source_template_id: templateId },
      { name: "buyer_signature", type: "signature", value: null, default_value: null, source_template_id: templateId },
    ]);
    const template = await globalDb.prepare("SELECT document_key, document_sha256 FROM templates WHERE id = ?").bind(templateId).first<{ document_key: string; document_sha256: string }>();
    const doc = await shardDbOf(e.envelope_id)
      .prepare("SELECT r2_key = ? AS same, sha256 = ? AS hash, page_count FROM envelope_documents WHERE envelope_id = ?")
      .bind(template!.document_key, template!.document_sha256, e.envelope_id)
      .first();
    expect(doc).toEqual({ same: 1, hash: 1, page_count: 2 });
  });

  it("keeps defaults where nothing is prefilled", async () => {
    const t = await newTenant();
    const templateId = await contractTemplate(t.key);
    const res = await create(t.key, { template_id: templateId });
    const row = await shardDbOf(res.body.data.envelope_id).prepare("SELECT value FROM envelope_fields WHERE envelope_id = ? AND name = 'down_payment'").bind(res.body.data.envelope_id).first();
    expect(row).toEqual({ value: "0" });
  });

  it("answers 422 on template_id for unknown, foreign and deleted templates, and creates nothing", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const foreignId = await contractTemplate(other.key);
    const ownId = await contractTemplate(t.key);
    await globalDb.prepare("UPDATE templates SET deleted_at = ? WHERE id = ?").bind(new Date().toISOString(), ownId).run();
    for (const id of ["tmpl_unknown", foreignId, ownId]) {
      const res = await create(t.key, { template_id: id });
      expect(res.status, id).toBe(422);
      expect(res.body).toMatchObject({ error: "Unknown template_id", details: [{ path: ["template_id"], message: "Template not found" }] });
    }
    expect(await (await orgShardDb(t.orgId)).prepare("SELECT COUNT(*) AS n FROM envelopes WHERE org_id = ?").bind(t.orgId).first()).toEqual({ n: 0 });
  });

  it("answers 422 for prefilled_data naming no field, prefilling a signature, or a value of the wrong kind, and for a paper envelope", async () => {
    const t = await newTenant();
    const templateId = await contractTemplate(t.key);
    const res = await create(t.key, { template_id: templateId, prefilled_data: { vehicle_vin: "x", buyer_signature: "Jane Doe", agree: "yes", down_payment: "lots" } });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { path: string[]; message: string }) => [d.path.join("."), d.message])).toEqual([
      ["prefilled_data.vehicle_vin", 'The template has no field named "vehicle_vin"'],
      ["prefilled_data.buyer_signature", "signature fields cannot be prefilled"],
      ["prefilled_data.agree", "a checkbox takes true or false"],
      ["prefilled_data.down_payment", "a number field takes a number"],
    ]);
    const paper = await create(t.key, { template_id: templateId, document_source: "upload" });
    expect(paper.status).toBe(422);
    expect(paper.body.details[0].path).toEqual(["document_source"]);
  });
});
