import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../../src/app";
import { BASE, call, newKey, newTenant } from "../../../helpers/api";
import { absolute, anchor, buildPdf, expectedRect, failingDb, uploadTemplate } from "../../../helpers/templates";

const LINE = "Buyer signature: ____________________";

async function templateWithText(key: string) {
  const built = await buildPdf([{ lines: [{ text: "Retail installment contract", x: 72, y: 720 }] }, { lines: [{ text: LINE, x: 72, y: 240 }, { text: LINE, x: 72, y: 120 }] }]);
  const res = await uploadTemplate(key, { file: built.bytes });
  expect(res.status).toBe(200);
  return { id: res.body.data.template_id as string, built };
}

const addFields = (key: string, id: string, fields: unknown[]) => call("POST", `/partner/templates/${id}/fields`, { key, body: { fields } });

describe("POST /partner/templates/:template_id/fields", () => {
  it("adds absolute and anchor fields in one request and answers with the resolved fields", async () => {
    const t = await newTenant();
    const { id, built } = await templateWithText(t.key);
    const res = await addFields(t.key, id, [
      absolute("Date", [{ page: 2, x: 0.6, y: 0.7, w: 0.2, h: 0.03 }], { type: "date", role: "buyer", default_value: "2026-11-23" }),
      anchor("Second signature", { anchor_text: "BUYER   signature:", occurrence: 2, offset_y: -0.04, w: 0.3, h: 0.04 }, { required: true }),
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ template_id: id, fields_added: 2 });
    const [date, sig] = res.body.data.fields;
    expect(date).toMatchObject({ placement_mode: "absolute", default_value: "2026-11-23" });
    expect(date.anchor_match).toBeUndefined();
    const expected = expectedRect(built.font, built.drawn[2]!, LINE, 0, 16);
    expect(sig.anchor_match.page).toBe(2);
    expect(sig.anchor_match.x).toBeCloseTo(expected.x, 3);
    expect(sig.anchor_match.y).toBeCloseTo(expected.y, 3);
    expect(sig.areas).toEqual([{ page: 2, x: sig.anchor_match.x, y: Math.round((sig.anchor_match.y - 0.04) * 1e6) / 1e6, w: 0.3, h: 0.04 }]);
    const rows = await env.DB.prepare("SELECT name, seq, placement_mode FROM template_fields WHERE template_id = ? ORDER BY seq").bind(id).all();
    expect(rows.results).toEqual([
      { name: "Date", seq: 1, placement_mode: "absolute" },
      { name: "Second signature", seq: 2, placement_mode: "anchor" },
    ]);
    const provider = await env.DB.prepare("SELECT p.fields FROM signing_provider_templates p JOIN templates t ON t.provider_template_id = p.id WHERE t.id = ?").bind(id).first<{ fields: string }>();
    expect(JSON.parse(provider!.fields).map((f: { name: string }) => f.name)).toEqual(["Date", "Second signature"]);
  });

  it("answers 422 for an occurrence beyond the matches, an unknown anchor, and a name already used", async () => {
    const t = await newTenant();
    const { id } = await templateWithText(t.key);
    const third = await addFields(t.key, id, [anchor("s", { anchor_text: "buyer signature", occurrence: 3 })]);
    expect(third.status).toBe(422);
    expect(third.body.error).toBe('Anchor not found: occurrence 3 of "buyer signature" requested, but it occurs 2 time(s)');
    const none = await addFields(t.key, id, [anchor("s", { anchor_text: "dealer" })]);
    expect(none.status).toBe(422);
    expect(none.body.details[0].code).toBe("anchor_not_found");
    expect((await addFields(t.key, id, [absolute("s", [{ page: 1, x: 0, y: 0, w: 0.1, h: 0.1 }])])).status).toBe(200);
    const again = await addFields(t.key, id, [absolute("s", [{ page: 1, x: 0.5, y: 0, w: 0.1, h: 0.1 }])]);
    expect(again.status).toBe(422);
    expect(again.body.details[0]).toMatchObject({ code: "duplicate_name", path: ["fields", 0, "name"] });
    const invalid = await addFields(t.key, id, [absolute("t", [{ page: 1, x: 0, y: 0, w: 1.5, h: 0.1 }])]);
    expect(invalid.status).toBe(422);
    expect(invalid.body.details[0].path).toEqual(["fields", 0, "placement", "areas", 0, "w"]);
  });

  it("answers 404 for an unknown template and for another organization's template", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const { id } = await templateWithText(other.key);
    expect((await addFields(t.key, "tmpl_unknown", [absolute("s", [{ page: 1, x: 0, y: 0, w: 0.1, h: 0.1 }])])).status).toBe(404);
    const foreign = await addFields(t.key, id, [absolute("s", [{ page: 1, x: 0, y: 0, w: 0.1, h: 0.1 }])]);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe("Template not found");
  });

  it("answers 403 without envelopes:write", async () => {
    const t = await newTenant();
    const { id } = await templateWithText(t.key);
    const reader = await newKey(t.orgId, ["envelopes:read"]);
    expect((await addFields(reader.key, id, [absolute("s", [{ page: 1, x: 0, y: 0, w: 0.1, h: 0.1 }])])).status).toBe(403);
  });

  it("answers 502 when the template PDF cannot be fetched for an anchor", async () => {
    const t = await newTenant();
    const { id } = await templateWithText(t.key);
    const row = await env.DB.prepare("SELECT document_key FROM templates WHERE id = ?").bind(id).first<{ document_key: string }>();
    await env.DOCS.delete(row!.document_key);
    const res = await addFields(t.key, id, [anchor("s", { anchor_text: "buyer signature" })]);
    expect(res.status).toBe(502);
    expect(res.body.error).toBe("The template PDF could not be fetched from storage");
  });

  it("answers 502 when the signing provider rejects the fields, and stores none", async () => {
    const t = await newTenant();
    const { id } = await templateWithText(t.key);
    const res = await app.request(
      `${BASE}/partner/templates/${id}/fields`,
      { method: "POST", headers: { "X-API-Key": t.key, "Content-Type": "application/json" }, body: JSON.stringify({ fields: [absolute("s", [{ page: 1, x: 0, y: 0, w: 0.1, h: 0.1 }])] }) },
      { ...env, DB: failingDb(env.DB, /UPDATE signing_provider_templates SET fields/) },
      { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext,
    );
    expect(res.status).toBe(502);
    expect(((await res.json()) as { error: string }).error).toMatch(/^Signing provider failure: the fields could not be stored/);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM template_fields WHERE template_id = ?").bind(id).first()).toEqual({ n: 0 });
  });
});
