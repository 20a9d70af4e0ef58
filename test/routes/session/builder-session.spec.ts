import { env } from "cloudflare:test";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { call, createEnvelope, newTenant } from "../../helpers/api";
import { PAGE_SIZES, consoleTemplate, memberToken, uploadTemplate } from "../../helpers/templates";
import { isShardTagged } from "../../../src/lib/shards";
import { globalDb, shardDbOf } from "../../helpers/shards";

const open = (bearer: string, body: Record<string, unknown>) => call("POST", "/esign/builder-session", { bearer, body });

/** A console template whose PDF carries one tagged field per page. */
async function tagged(bearer: string, name: string, pages: (keyof typeof PAGE_SIZES)[], kba = false) {
  return consoleTemplate(bearer, {
    name,
    kba,
    pages: pages.map((size, i) => ({ size: PAGE_SIZES[size], lines: [{ text: `${name} p${i + 1} {{${name}_p${i + 1};type=signature;role=buyer}}`, x: 72, y: 300 }] })),
  });
}

async function setup() {
  const t = await newTenant();
  const bearer = await memberToken(t.orgId);
  const a = await tagged(bearer, "a", ["letter"]);
  const b = await tagged(bearer, "b", ["a4", "legal"], true);
  const c = await tagged(bearer, "c", ["letter"]);
  const envelope = await createEnvelope(t.key);
  return { t, bearer, a, b, c, envelope };
}

async function storedPdf(templateId: string) {
  // a builder working copy is a row of its envelope's shard, an organization's own template a global one
  const read = (db: D1Database) => db.prepare("SELECT document_key FROM templates WHERE id = ?").bind(templateId).first<{ document_key: string }>();
  const row = isShardTagged(templateId) ? await read(shardDbOf(templateId)) : ((await read(globalDb)) ?? (await read(shardDbOf(templateId))));
  return { key: row!.document_key, doc: await PDFDocument.load(new Uint8Array(await (await env.DOCS.get(row!.document_key))!.arrayBuffer())) };
}

describe("POST /esign/builder-session", () => {
  it("merges template_ids in the given order into one PDF, carrying the fields over with page numbers offset", async () => {
    const { t, bearer, a, b, envelope } = await setup();
    const res = await open(bearer, { envelope_id: envelope.envelope_id, template_ids: [b.template_id, a.template_id], template_name: "Closing" });
    expect(res.status).toBe(201);
    const s = res.body.data;
    expect(s).toMatchObject({ envelope_id: envelope.envelope_id, template_name: "Closing", page_count: 3, kba_required: true, provider_instance: "cloud", continued: false, document_source: "template" });
    expect(s.session_id).toMatch(/^bld_/);
    expect(s.source).toEqual({ kind: "templates", template_ids: [b.template_id, a.template_id], package_id: null });
    expect(s.fields.map((f: { name: string; areas: { page: number }[] }) => [f.name, f.areas[0]!.page])).toEqual([["b_p1", 1], ["b_p2", 2], ["a_p1", 3]]);
    const { doc } = await storedPdf(s.template_id);
    expect(doc.getPages().map((p) => [Math.round(p.getWidth()), Math.round(p.getHeight())])).toEqual([[595, 842], [612, 1008], [612, 792]]);
    const updated = await call("GET", `/partner/envelopes/${envelope.envelope_id}`, { key: t.key });
    expect(updated.body.data).toMatchObject({ status: "uploaded", template_id: s.template_id, kba_required: true, provider_instance: "cloud", metadata: { document_source: "template" } });
    const fields = await shardDbOf(envelope.envelope_id).prepare("SELECT COUNT(*) AS n FROM envelope_fields WHERE envelope_id = ?").bind(envelope.envelope_id).first();
    expect(fields).toEqual({ n: 3 });
    // the merged document's page sizes are its sources' in order, so its signing page lays out before pdf.js loads
    const original = await shardDbOf(envelope.envelope_id).prepare("SELECT page_sizes FROM envelope_documents WHERE envelope_id = ? AND kind = 'original'").bind(envelope.envelope_id).first<{ page_sizes: string }>();
    expect(JSON.parse(original!.page_sizes)).toEqual([[595.28, 841.89], [612, 1008], [612, 792]]);
  });

  it("merges fields of one name, type and role into one field, and renames a name that means something else", async () => {
    const { t, bearer } = await setup();
    const page = (text: string) => [{ lines: [{ text, x: 72, y: 300 }] }];
    const one = await consoleTemplate(bearer, { name: "one", pages: page("{{buyer;type=signature;role=buyer}} {{note;type=text;role=buyer}}") });
    const two = await consoleTemplate(bearer, { name: "two", pages: page("{{buyer;type=signature;role=buyer}} {{note;type=date;role=buyer}}") });
    const e = await createEnvelope(t.key);
    const res = await open(bearer, { envelope_id: e.envelope_id, template_ids: [one.template_id, two.template_id] });
    expect(res.status).toBe(201);
    expect(res.body.data.fields.map((f: { name: string; type: string; areas: { page: number }[] }) => [f.name, f.type, f.areas.map((a) => a.page)])).toEqual([
      ["buyer", "signature", [1, 2]],
      ["note", "text", [1]],
      ["note (2)", "date", [2]],
    ]);
  });

  it("carries options over; selects merge only with the same options, radios (whose areas are their options) never", async () => {
    const { t, bearer } = await setup();
    const page = (text: string) => [{ lines: [{ text, x: 72, y: 300, size: 9 }] }];
    const one = await consoleTemplate(bearer, { name: "one", pages: page("{{plan;type=select;role=buyer;options=A,B}} {{size;type=select;role=buyer;options=S,M}} {{pay;type=radio;role=buyer;options=Card}}") });
    const two = await consoleTemplate(bearer, { name: "two", pages: page("{{plan;type=select;role=buyer;options=A,B}} {{size;type=select;role=buyer;options=S,M,L}} {{pay;type=radio;role=buyer;options=Card}}") });
    const e = await createEnvelope(t.key);
    const res = await open(bearer, { envelope_id: e.envelope_id, template_ids: [one.template_id, two.template_id] });
    expect(res.status).toBe(201);
    expect(res.body.data.fields.map((f: { name: string; options: string[]; areas: { page: number }[] }) => [f.name, f.options, f.areas.map((a) => a.page)])).toEqual([
      ["plan", ["A", "B"], [1, 2]],
      ["size", ["S", "M"], [1]],
      ["pay", ["Card"], [1]],
      ["size (2)", ["S", "M", "L"], [2]],
      ["pay (2)", ["Card"], [2]],
    ]);
    const rows = await shardDbOf(e.envelope_id).prepare("SELECT name, options FROM envelope_fields WHERE envelope_id = ? ORDER BY seq").bind(e.envelope_id).all();
    expect(rows.results.map((r) => r.options)).toEqual(['["A","B"]', '["S","M"]', '["Card"]', '["S","M","L"]', '["Card"]']);
  });

  it("keeps package_template_ids in package order, derives KBA from the kept documents only, and copies a single kept document", async () => {
    const { t, bearer, a, b, c } = await setup();
    const pkg = (await call("POST", "/document-packages", { bearer, body: { name: "Set", template_ids: [a.template_id, b.template_id, c.template_id] } })).body.data;
    expect(pkg.kba_required).toBe(true);
    const two = await createEnvelope(t.key);
    const merged = await open(bearer, { envelope_id: two.envelope_id, package_id: pkg.package_id, package_template_ids: [c.template_id, a.template_id] });
    expect(merged.status).toBe(201);
    expect(merged.body.data).toMatchObject({ kba_required: false, provider_instance: "default", page_count: 2, document_source: "package", source: { kind: "package", template_ids: [a.template_id, c.template_id], package_id: pkg.package_id } });
    expect(merged.body.data.fields.map((f: { name: string }) => f.name)).toEqual(["a_p1", "c_p1"]);

    const one = await createEnvelope(t.key);
    const single = await open(bearer, { envelope_id: one.envelope_id, package_id: pkg.package_id, package_template_ids: [b.template_id] });
    expect(single.body.data).toMatchObject({ kba_required: true, provider_instance: "cloud", page_count: 2 });
    expect((await storedPdf(single.body.data.template_id)).key).toBe((await storedPdf(b.template_id)).key); // copied, not merged
  });

  it("copies a single template_id, and starts a new document with the kba_required chosen here", async () => {
    const { t, bearer, a } = await setup();
    const e1 = await createEnvelope(t.key);
    const copy = await open(bearer, { envelope_id: e1.envelope_id, template_id: a.template_id });
    expect(copy.body.data).toMatchObject({ page_count: 1, document_source: "template", fields: [{ name: "a_p1" }] });
    expect(copy.body.data.template_id).not.toBe(a.template_id);
    expect((await storedPdf(copy.body.data.template_id)).key).toBe((await storedPdf(a.template_id)).key);
    const e2 = await createEnvelope(t.key);
    const fresh = await open(bearer, { envelope_id: e2.envelope_id, kba_required: true });
    expect(fresh.status).toBe(201);
    expect(fresh.body.data).toMatchObject({ page_count: null, kba_required: true, provider_instance: "cloud", document_source: "new", fields: [] });
    const row = await shardDbOf(e2.envelope_id).prepare("SELECT status, kba_required, template_id FROM envelopes WHERE id = ?").bind(e2.envelope_id).first();
    expect(row).toEqual({ status: "pending", kba_required: 1, template_id: fresh.body.data.template_id });
  });

  it("continues the same working document when reopened without a source or with the same one; another source is 409", async () => {
    const { bearer, a, c, envelope } = await setup();
    const first = (await open(bearer, { envelope_id: envelope.envelope_id, template_ids: [a.template_id, c.template_id] })).body.data;
    const again = await open(bearer, { envelope_id: envelope.envelope_id, template_ids: [a.template_id, c.template_id] });
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ template_id: first.template_id, continued: true });
    expect(again.body.data.session_id).not.toBe(first.session_id);
    expect((await open(bearer, { envelope_id: envelope.envelope_id })).body.data.template_id).toBe(first.template_id);
    const other = await open(bearer, { envelope_id: envelope.envelope_id, template_id: a.template_id });
    expect(other.status).toBe(409);
  });

  it("answers 400 for every invalid combination and id list of the spec", async () => {
    const { t, bearer, a, b, c, envelope } = await setup();
    const pkg = (await call("POST", "/document-packages", { bearer, body: { name: "Set", template_ids: [a.template_id, b.template_id] } })).body.data;
    const gone = await tagged(bearer, "gone", ["letter"]);
    const inPkg = (await call("POST", "/document-packages", { bearer, body: { name: "Set2", template_ids: [a.template_id, gone.template_id] } })).body.data;
    await call("DELETE", `/templates/${gone.template_id}`, { bearer });
    const many = Array.from({ length: 21 }, () => a.template_id);
    const e = envelope.envelope_id;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ envelope_id: e, batch_id: "bsb_x" }, /mutually exclusive/],
      [{ template_id: a.template_id }, /envelope_id or batch_id is required/],
      [{ batch_id: "bsb_x", package_id: pkg.package_id, package_template_ids: [a.template_id] }, /package_template_ids cannot be used with batch_id/],
      [{ batch_id: "bsb_x", template_ids: [a.template_id, c.template_id] }, /template_ids cannot be used with a batch/],
      [{ envelope_id: e, template_ids: [a.template_id, c.template_id], template_id: a.template_id }, /template_ids replaces template_id and package_id/],
      [{ envelope_id: e, template_ids: [a.template_id, c.template_id], package_id: pkg.package_id }, /template_ids replaces template_id and package_id/],
      [{ envelope_id: e, template_ids: [a.template_id, c.template_id, a.template_id] }, /template_ids repeats/],
      [{ envelope_id: e, template_ids: [a.template_id, gone.template_id] }, /template_ids includes the deleted template/],
      [{ envelope_id: e, template_ids: [a.template_id, "tmpl_nope"] }, /not a template of this organization/],
      [{ envelope_id: e, template_ids: [a.template_id] }, /2 to 20 templates; got 1/],
      [{ envelope_id: e, template_ids: many }, /2 to 20 templates; got 21/],
      [{ envelope_id: e, package_id: pkg.package_id, package_template_ids: [c.template_id] }, /is not in package/],
      [{ envelope_id: e, package_id: inPkg.package_id, package_template_ids: [gone.template_id] }, /deleted template/],
      [{ envelope_id: e, package_id: pkg.package_id, package_template_ids: [] }, /at least one/],
      [{ envelope_id: e, package_template_ids: [a.template_id] }, /needs package_id/],
      [{ envelope_id: e, template_id: a.template_id, kba_required: true }, /only be chosen for a new document/],
    ];
    for (const [body, message] of cases) {
      const res = await open(bearer, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toMatch(message);
    }
    expect((await call("GET", `/partner/envelopes/${e}`, { key: t.key })).body.data.status).toBe("pending");
  });

  it("answers 422 for an envelope past uploaded; 404 for unknown or foreign ids (an unknown batch too)", async () => {
    const { t, bearer, a } = await setup();
    const batch = await open(bearer, { batch_id: "bsb_x", template_id: a.template_id });
    expect(batch.status).toBe(404);
    expect(batch.body.error).toBe("Bulk-send batch not found");
    const voided = await createEnvelope(t.key);
    await call("POST", `/partner/envelopes/${voided.envelope_id}/void`, { key: t.key, body: { reason: "x" } });
    const late = await open(bearer, { envelope_id: voided.envelope_id, template_id: a.template_id });
    expect(late.status).toBe(422);
    expect(late.body.error).toBe("Cannot open the builder for an envelope with status voided");
    expect(late.body.details).toEqual([{ code: "invalid_status", path: ["envelope_id"], expected: "an envelope with status pending | uploaded", received: "voided", message: late.body.error }]);
    const other = await newTenant();
    const foreignEnvelope = await createEnvelope(other.key);
    expect((await open(bearer, { envelope_id: foreignEnvelope.envelope_id, template_id: a.template_id })).status).toBe(404);
    const foreignTemplate = await consoleTemplate(await memberToken(other.orgId));
    const e = await createEnvelope(t.key);
    expect((await open(bearer, { envelope_id: e.envelope_id, template_id: foreignTemplate.template_id })).status).toBe(404);
    expect((await open(bearer, { envelope_id: e.envelope_id, package_id: "pkg_nope" })).status).toBe(404);
  });

  it("answers 409 for an envelope whose document came from its template at creation", async () => {
    const { t, bearer, a } = await setup();
    const template = await uploadTemplate(t.key);
    const e = await createEnvelope(t.key, { template_id: template.body.data.template_id });
    const res = await open(bearer, { envelope_id: e.envelope_id, template_id: a.template_id });
    expect(res.status).toBe(409);
  });
});

