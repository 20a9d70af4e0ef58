import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, newTenant } from "../../helpers/api";
import { consoleTemplate, memberToken } from "../../helpers/templates";

async function setup() {
  const t = await newTenant();
  const bearer = await memberToken(t.orgId);
  const plain = await consoleTemplate(bearer, { name: "Contract" });
  const kba = await consoleTemplate(bearer, { name: "KBA disclosure", kba: true });
  return { t, bearer, plain, kba };
}

describe("document packages", () => {
  it("derive kba_required and provider_instance: a KBA member puts every member in the cloud account", async () => {
    const { bearer, plain, kba } = await setup();
    const res = await call("POST", "/document-packages", { bearer, body: { name: "Closing set", template_ids: [plain.template_id, kba.template_id] } });
    expect(res.status).toBe(201);
    const pkg = res.body.data;
    expect(pkg.package_id).toMatch(/^pkg_/);
    expect(pkg).toMatchObject({ name: "Closing set", kba_required: true, provider_instance: "cloud" });
    expect(pkg.items.map((i: Record<string, unknown>) => [i.template_id, i.position, i.kba_required, i.provider_instance])).toEqual([
      [plain.template_id, 1, false, "cloud"],
      [kba.template_id, 2, true, "cloud"],
    ]);
    // the plain member was copied into the cloud account; the KBA member is used as is
    expect(pkg.items[0].provider_template_id).not.toBe(plain.provider_template_id);
    expect(pkg.items[1].provider_template_id).toBe(kba.provider_template_id);
    const copy = await env.DB.prepare("SELECT instance, copied_from, template_id FROM signing_provider_templates WHERE id = ?").bind(pkg.items[0].provider_template_id).first();
    expect(copy).toEqual({ instance: "cloud", copied_from: plain.provider_template_id, template_id: plain.template_id });
    expect((await call("GET", `/document-packages/${pkg.package_id}`, { bearer })).body.data).toEqual(pkg);
  });

  it("are not KBA without a KBA member, and PATCH derives again (kba_required itself is not settable)", async () => {
    const { bearer, plain, kba } = await setup();
    const pkg = (await call("POST", "/document-packages", { bearer, body: { name: "Set", template_ids: [plain.template_id] } })).body.data;
    expect(pkg).toMatchObject({ kba_required: false, provider_instance: "default", items: [{ provider_instance: "default", provider_template_id: plain.provider_template_id }] });
    const grown = await call("PATCH", `/document-packages/${pkg.package_id}`, { bearer, body: { template_ids: [kba.template_id, plain.template_id] } });
    expect(grown.status).toBe(200);
    expect(grown.body.data).toMatchObject({ kba_required: true, provider_instance: "cloud" });
    expect(grown.body.data.items.map((i: { template_id: string }) => i.template_id)).toEqual([kba.template_id, plain.template_id]);
    const renamed = await call("PATCH", `/document-packages/${pkg.package_id}`, { bearer, body: { name: "Renamed" } });
    expect(renamed.body.data.items[1].provider_template_id).toBe(grown.body.data.items[1].provider_template_id); // the copy is reused
    const shrunk = await call("PATCH", `/document-packages/${pkg.package_id}`, { bearer, body: { template_ids: [plain.template_id] } });
    expect(shrunk.body.data).toMatchObject({ name: "Renamed", kba_required: false, provider_instance: "default" });
    const settable = await call("PATCH", `/document-packages/${pkg.package_id}`, { bearer, body: { kba_required: false } });
    expect(settable.status).toBe(422);
  });

  it("answer 502 when a member cannot be copied to the KBA account (its PDF is gone from storage)", async () => {
    const { t, bearer, plain, kba } = await setup();
    const row = await env.DB.prepare("SELECT document_key FROM templates WHERE id = ?").bind(plain.template_id).first<{ document_key: string }>();
    await env.DOCS.delete(row!.document_key);
    const res = await call("POST", "/document-packages", { bearer, body: { name: "Set", template_ids: [plain.template_id, kba.template_id] } });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/could not be copied to the cloud \(KBA\) signing account/);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM document_packages WHERE org_id = ?").bind(t.orgId).first()).toEqual({ n: 0 });
  });

  it("answer 422 for unknown, foreign, deleted or repeated members, and 404 for another organization's package", async () => {
    const { bearer, plain } = await setup();
    const other = await newTenant();
    const otherBearer = await memberToken(other.orgId);
    const foreign = await consoleTemplate(otherBearer);
    const gone = await consoleTemplate(bearer);
    await call("DELETE", `/templates/${gone.template_id}`, { bearer });
    const res = await call("POST", "/document-packages", { bearer, body: { name: "Set", template_ids: [plain.template_id, "tmpl_nope", foreign.template_id, gone.template_id, plain.template_id] } });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { path: (string | number)[]; message: string }) => [d.path.join("."), d.message])).toEqual([
      ["template_ids.1", "Template not found"],
      ["template_ids.2", "Template not found"],
      ["template_ids.3", `Template ${gone.template_id} is deleted`],
      ["template_ids.4", `Template ${plain.template_id} is listed twice`],
    ]);
    const theirs = (await call("POST", "/document-packages", { bearer: otherBearer, body: { name: "Theirs", template_ids: [foreign.template_id] } })).body.data;
    expect((await call("PATCH", `/document-packages/${theirs.package_id}`, { bearer, body: { name: "Mine" } })).status).toBe(404);
    expect((await call("GET", `/document-packages/${theirs.package_id}`, { bearer })).status).toBe(404);
  });
});
