import { describe, expect, it } from "vitest";
import { call, newKey, newTenant } from "../../../helpers/api";
import { absolute, buildPdf, consoleTemplate, memberToken, send, uploadTemplate } from "../../../helpers/templates";

const SIGN = (role: string) => `Sign here {{${role}_signature;type=signature;role=${role};required=true}}`;

/** POST /partner/templates with `kba_required` as a partner sends it (a multipart text field). */
async function uploadWithKba(key: string, kba: string | undefined, opts: { roles?: string[]; name?: string } = {}) {
  const roles = opts.roles ?? ["buyer"];
  const { bytes } = await buildPdf([{ lines: roles.map((r, i) => ({ text: SIGN(r), x: 72, y: 700 - i * 80 })) }]);
  const form = new FormData();
  form.append("file", new File([bytes], "contract.pdf", { type: "application/pdf" }));
  form.append("name", opts.name ?? "Retail installment contract");
  if (kba !== undefined) form.append("kba_required", kba);
  return send("POST", "/partner/templates", key, form);
}

const ids = (res: { body: { data: { template_id: string }[] } }) => res.body.data.map((t) => t.template_id);

describe("GET /partner/templates", () => {
  it("lists the organization's templates newest first, paged, with kba_required, roles and field count", async () => {
    const t = await newTenant();
    const plain = await uploadTemplate(t.key, { name: "Plain", fields: [absolute("Buyer signature", [{ page: 1, x: 0.1, y: 0.8, w: 0.3, h: 0.05 }])] });
    const kba = await uploadWithKba(t.key, "true", { roles: ["buyer", "co_buyer"], name: "KBA contract" });
    const empty = await uploadTemplate(t.key, { name: "Empty" });
    expect([plain.status, kba.status, empty.status]).toEqual([200, 200, 200]);

    const all = await call("GET", "/partner/templates", { key: t.key });
    expect(all.status).toBe(200);
    expect(all.body.meta).toEqual({ page: 1, limit: 20, total: 3 });
    expect(ids(all)).toEqual([empty.body.data.template_id, kba.body.data.template_id, plain.body.data.template_id]);
    expect(all.body.data[1]).toEqual({
      template_id: kba.body.data.template_id,
      name: "KBA contract",
      external_id: null,
      kba_required: true,
      provider_instance: "cloud",
      provider_template_id: kba.body.data.provider_template_id,
      has_document: true,
      page_count: 1,
      roles: ["buyer", "co_buyer"],
      field_count: 2,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(all.body.data[2]).toMatchObject({ name: "Plain", kba_required: false, provider_instance: "default", roles: ["buyer"], field_count: 1 });
    expect(all.body.data[0]).toMatchObject({ name: "Empty", roles: [], field_count: 0 });
    expect(all.body.data[0].fields).toBeUndefined();

    const page2 = await call("GET", "/partner/templates?limit=2&page=2", { key: t.key });
    expect(page2.body.meta).toEqual({ page: 2, limit: 2, total: 3 });
    expect(ids(page2)).toEqual([plain.body.data.template_id]);
    const beyond = await call("GET", "/partner/templates?limit=2&page=9", { key: t.key });
    expect(beyond.body).toEqual({ data: [], meta: { page: 9, limit: 2, total: 3 } });
  });

  it("shows console templates too, but neither deleted templates nor another organization's", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const bearer = await memberToken(t.orgId, "admin");
    const fromConsole = await consoleTemplate(bearer, { name: "Console KBA", kba: true });
    const gone = await uploadTemplate(t.key, { name: "Deleted" });
    expect((await call("DELETE", `/templates/${gone.body.data.template_id}`, { bearer })).status).toBe(200);
    await uploadTemplate(other.key, { name: "Theirs" });

    const mine = await call("GET", "/partner/templates", { key: t.key });
    expect(ids(mine)).toEqual([fromConsole.template_id]);
    expect(mine.body.data[0]).toMatchObject({ kba_required: true, provider_instance: "cloud", has_document: true });
    expect(mine.body.meta.total).toBe(1);
  });

  it("answers 400 naming the parameter for a limit above 100 or a page below 1", async () => {
    const t = await newTenant();
    for (const [query, path] of [["limit=101", "limit"], ["limit=0", "limit"], ["page=0", "page"], ["page=abc", "page"]] as const) {
      const res = await call("GET", `/partner/templates?${query}`, { key: t.key });
      expect(res.status, query).toBe(400);
      expect(res.body.details[0].path, query).toEqual([path]);
    }
  });

  it("serves a key holding envelopes:read or envelopes:write, and 403 to a key with neither", async () => {
    const t = await newTenant();
    await uploadTemplate(t.key);
    for (const scope of ["envelopes:read", "envelopes:write"]) {
      const { key } = await newKey(t.orgId, [scope]);
      const res = await call("GET", "/partner/templates", { key });
      expect(res.status, scope).toBe(200);
      expect(res.body.meta.total, scope).toBe(1);
    }
    const { key } = await newKey(t.orgId, ["vault:read", "esign:write"]);
    const refused = await call("GET", "/partner/templates", { key });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("Missing required scope: envelopes:read or envelopes:write");
    expect((await call("GET", "/partner/templates")).status).toBe(401);
  });
});

describe("GET /partner/templates/:template_id", () => {
  it("returns the template with every field as placed, its roles and kba_required", async () => {
    const t = await newTenant();
    const made = await uploadWithKba(t.key, "true", { roles: ["buyer", "co_buyer"] });
    expect(made.status).toBe(200);
    const res = await call("GET", `/partner/templates/${made.body.data.template_id}`, { key: t.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      template_id: made.body.data.template_id,
      name: "Retail installment contract",
      kba_required: true,
      provider_instance: "cloud",
      provider_template_id: made.body.data.provider_template_id,
      has_document: true,
      roles: ["buyer", "co_buyer"],
      field_count: 2,
    });
    expect(res.body.data.fields).toEqual(made.body.data.fields);
    expect(res.body.data.fields.map((f: { name: string; role: string }) => [f.name, f.role])).toEqual([
      ["buyer_signature", "buyer"],
      ["co_buyer_signature", "co_buyer"],
    ]);
  });

  it("includes fields added later through POST …/fields", async () => {
    const t = await newTenant();
    const made = await uploadTemplate(t.key);
    const added = await call("POST", `/partner/templates/${made.body.data.template_id}/fields`, {
      key: t.key,
      body: { fields: [absolute("Dealer signature", [{ page: 1, x: 0.5, y: 0.8, w: 0.3, h: 0.05 }], { role: "dealer" })] },
    });
    expect(added.status).toBe(200);
    const res = await call("GET", `/partner/templates/${made.body.data.template_id}`, { key: t.key });
    expect(res.body.data).toMatchObject({ roles: ["dealer"], field_count: 1, kba_required: false, provider_instance: "default" });
    expect(res.body.data.fields[0]).toMatchObject({ name: "Dealer signature", role: "dealer", placement_mode: "absolute" });
  });

  it("answers 404 for another organization's template, a deleted one, and one that does not exist", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const theirs = await uploadTemplate(other.key);
    const mine = await uploadTemplate(t.key);
    const bearer = await memberToken(t.orgId, "admin");
    expect((await call("DELETE", `/templates/${mine.body.data.template_id}`, { bearer })).status).toBe(200);
    for (const id of [theirs.body.data.template_id, mine.body.data.template_id, "tmpl_00000000000000000000000000"]) {
      const res = await call("GET", `/partner/templates/${id}`, { key: t.key });
      expect(res.status, id).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain("Retail installment contract");
    }
    // the owner still reads its own
    expect((await call("GET", `/partner/templates/${theirs.body.data.template_id}`, { key: other.key })).status).toBe(200);
  });
});
