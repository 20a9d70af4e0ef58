import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createEnvelope, newKey, newTenant } from "../../../helpers/api";
import { buildPdf, send, uploadTemplate } from "../../../helpers/templates";
import { pageTexts } from "../../../helpers/pdf";
import { shardDbOf } from "../../../helpers/shards";

async function putDocument(key: string, envelopeId: string, file: Uint8Array | null) {
  const form = new FormData();
  if (file) form.append("file", new File([file], "contract.pdf", { type: "application/pdf" }));
  return send("PUT", `/partner/envelopes/${envelopeId}/document`, key, form);
}

const taggedContract = () =>
  buildPdf([{ lines: [{ text: "Retail installment contract", x: 72, y: 720 }, { text: "Buyer: {{buyer_signature;type=signature;role=buyer;required=true}}", x: 72, y: 200 }] }]);

describe("PUT /partner/envelopes/:envelope_id/document", () => {
  it("attaches the PDF to a pending envelope, honours its embedded tags and moves it to uploaded", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const res = await putDocument(t.key, e.envelope_id, (await taggedContract()).bytes);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ envelope_id: e.envelope_id, status: "uploaded", document: { page_count: 1 }, metadata: { document_source: "new" } });
    expect(res.body.data.fields).toEqual([expect.objectContaining({ name: "buyer_signature", type: "signature", required: true, placement_mode: "tag", value: null })]);
    const doc = await shardDbOf(e.envelope_id).prepare("SELECT kind, r2_key, sha256, size_bytes, page_count FROM envelope_documents WHERE envelope_id = ?").bind(e.envelope_id).first<{ r2_key: string; sha256: string }>();
    expect(doc).toMatchObject({ kind: "original", page_count: 1, sha256: res.body.data.document.sha256 });
    const stored = new Uint8Array(await (await env.DOCS.get(doc!.r2_key))!.arrayBuffer());
    const text = (await pageTexts(stored)).join("\n");
    expect(text).toMatch(/Buyer:/);
    expect(text).not.toMatch(/\{\{/);
    const fields = await shardDbOf(e.envelope_id).prepare("SELECT name, seq FROM envelope_fields WHERE envelope_id = ?").bind(e.envelope_id).all();
    expect(fields.results).toEqual([{ name: "buyer_signature", seq: 1 }]);
    const audit = await shardDbOf(e.envelope_id).prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(e.envelope_id).all();
    expect(audit.results.map((r) => r.action)).toEqual(["envelope.created", "envelope.attach_document"]);
    const get = await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key });
    expect(get.body.data.status).toBe("uploaded");
  });

  it("answers 422 naming the status when the envelope is no longer pending, storing nothing", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    expect((await putDocument(t.key, e.envelope_id, (await taggedContract()).bytes)).status).toBe(200);
    const again = await putDocument(t.key, e.envelope_id, (await taggedContract()).bytes);
    expect(again.status).toBe(422);
    expect(again.body.error).toBe("Cannot attach a document to an envelope with status uploaded");
    const v = await createEnvelope(t.key);
    await call("POST", `/partner/envelopes/${v.envelope_id}/void`, { key: t.key, body: { reason: "x" } });
    const voided = await putDocument(t.key, v.envelope_id, (await taggedContract()).bytes);
    expect(voided.body.error).toBe("Cannot attach a document to an envelope with status voided");
    expect((await env.DOCS.list({ prefix: `documents/${t.orgId}/` })).objects).toHaveLength(1);
  });

  it("answers 409 for a paper envelope (vault-in-upload) and for an envelope made from a template", async () => {
    const t = await newTenant();
    const paper = await createEnvelope(t.key, { document_source: "upload" });
    const res = await putDocument(t.key, paper.envelope_id, (await taggedContract()).bytes);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/vault-in-upload/);
    const template = await uploadTemplate(t.key);
    const fromTemplate = await createEnvelope(t.key, { template_id: template.body.data.template_id });
    const res2 = await putDocument(t.key, fromTemplate.envelope_id, (await taggedContract()).bytes);
    expect(res2.status).toBe(409);
  });

  it("answers 400 without a file, 415 for a file that is not a PDF, 403 without scope, 404 across organizations", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    expect((await putDocument(t.key, e.envelope_id, null)).status).toBe(400);
    const notPdf = await putDocument(t.key, e.envelope_id, new TextEncoder().encode("<html>not a pdf</html>"));
    expect(notPdf.status).toBe(415);
    const reader = await newKey(t.orgId, ["envelopes:read"]);
    expect((await putDocument(reader.key, e.envelope_id, (await taggedContract()).bytes)).status).toBe(403);
    const other = await newTenant();
    expect((await putDocument(other.key, e.envelope_id, (await taggedContract()).bytes)).status).toBe(404);
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.status).toBe("pending");
  });
});
