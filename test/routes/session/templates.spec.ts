import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, newTenant } from "../../helpers/api";
import { absolute, buildPdf, consoleTemplate, memberToken, putTemplateDocument } from "../../helpers/templates";

describe("console templates", () => {
  it("POST /templates derives provider_instance from kba_required, for any member", async () => {
    const t = await newTenant();
    const bearer = await memberToken(t.orgId, "member");
    const kba = await call("POST", "/templates", { bearer, body: { name: "KBA contract", kba_required: true } });
    expect(kba.status).toBe(201);
    expect(kba.body.data).toMatchObject({ name: "KBA contract", kba_required: true, provider_instance: "cloud", has_document: false, page_count: null, fields: [], deleted_at: null });
    expect(kba.body.data.template_id).toMatch(/^tmpl_/);
    expect(Number.isInteger(kba.body.data.provider_template_id)).toBe(true);
    const plain = await call("POST", "/templates", { bearer, body: { name: "Plain" } });
    expect(plain.body.data).toMatchObject({ kba_required: false, provider_instance: "default" });
    const provider = await env.DB.prepare("SELECT instance FROM signing_provider_templates WHERE id = ?").bind(kba.body.data.provider_template_id).first();
    expect(provider).toEqual({ instance: "cloud" });
  });

  it("needs a bearer token and membership", async () => {
    const t = await newTenant();
    expect((await call("POST", "/templates", { body: { name: "x" } })).status).toBe(401);
    const stranger = await memberToken((await newTenant()).orgId);
    const res = await call("POST", "/templates", { bearer: stranger, body: { name: "x" }, headers: { "X-Org-Id": t.orgId } });
    expect(res.status).toBe(403);
  });

  it("PATCH /templates/:id renames, and answers 409 to any change of kba_required (the same value is fine)", async () => {
    const t = await newTenant();
    const bearer = await memberToken(t.orgId);
    const kba = (await call("POST", "/templates", { bearer, body: { name: "KBA", kba_required: true } })).body.data;
    const plain = (await call("POST", "/templates", { bearer, body: { name: "Plain" } })).body.data;
    const renamed = await call("PATCH", `/templates/${kba.template_id}`, { bearer, body: { name: "KBA v2", kba_required: true } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: "KBA v2", kba_required: true });
    for (const [id, value] of [[kba.template_id, false], [plain.template_id, true]] as const) {
      const res = await call("PATCH", `/templates/${id}`, { bearer, body: { kba_required: value } });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: "kba_immutable" });
      expect(res.body.error).toMatch(/kba_required is fixed/);
    }
    expect((await call("GET", `/templates/${plain.template_id}`, { bearer })).body.data.kba_required).toBe(false);
  });

  it("PUT /templates/:id/document gives a console template its PDF once; tags become fields", async () => {
    const t = await newTenant();
    const bearer = await memberToken(t.orgId);
    const created = (await call("POST", "/templates", { bearer, body: { name: "Tagged", kba_required: true } })).body.data;
    const { bytes } = await buildPdf([{ lines: [{ text: "Sign {{s;type=signature;role=buyer}}", x: 72, y: 700 }] }]);
    const res = await putTemplateDocument(bearer, created.template_id, bytes);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ has_document: true, page_count: 1, kba_required: true, provider_instance: "cloud", fields: [{ name: "s", placement_mode: "tag" }] });
    expect((await putTemplateDocument(bearer, created.template_id, bytes)).status).toBe(409);
    expect((await putTemplateDocument(bearer, "tmpl_nope", bytes)).status).toBe(404);
  });

  it("answers 409 to partner field placement on a template that has no document yet", async () => {
    const t = await newTenant();
    const bearer = await memberToken(t.orgId);
    const created = (await call("POST", "/templates", { bearer, body: { name: "Empty" } })).body.data;
    const res = await call("POST", `/partner/templates/${created.template_id}/fields`, { key: t.key, body: { fields: [absolute("s", [{ page: 1, x: 0, y: 0, w: 0.1, h: 0.1 }])] } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/no document/);
  });

  it("GET and DELETE: another organization's template is 404; a deleted one is gone", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const bearer = await memberToken(t.orgId);
    const foreign = await consoleTemplate(await memberToken(other.orgId));
    expect((await call("GET", `/templates/${foreign.template_id}`, { bearer })).status).toBe(404);
    expect((await call("PATCH", `/templates/${foreign.template_id}`, { bearer, body: { name: "mine" } })).status).toBe(404);
    expect((await call("DELETE", `/templates/${foreign.template_id}`, { bearer })).status).toBe(404);
    const own = await consoleTemplate(bearer);
    const deleted = await call("DELETE", `/templates/${own.template_id}`, { bearer });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.deleted_at).toMatch(/Z$/);
    expect((await call("GET", `/templates/${own.template_id}`, { bearer })).status).toBe(404);
  });
});
