import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { operator } from "../../../helpers/api";
import { bulkTenant, readyBatch, seedCustomers } from "../../../helpers/bulk";
import { templateWithRoles } from "../../../helpers/signing";
import { consoleTemplate, memberToken } from "../../../helpers/templates";
import { shardDbOf } from "../../../helpers/shards";

describe("bulk send routes (spec 4.8)", () => {
  it("creates a draft batch with derived provider_instance and kba_required, admins only", async () => {
    const t = await bulkTenant();
    const kbaTemplate = await consoleTemplate(t.admin, { kba: true });
    const created = await t.as("POST", "/bulk-send", { name: "Addendum", document_source: "template", source_template_id: kbaTemplate.template_id });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ status: "draft", kba_required: true, provider_instance: "cloud", preserve_signing_order: true, add_me_as_signer: false, tag_ids: [], total_count: 0 });
    expect(created.body.data.batch_id).toMatch(/^bsb_/);
    // a tpl_ id is the same template
    const tpl = await t.as("POST", "/bulk-send", { name: "Addendum", document_source: "template", source_template_id: kbaTemplate.template_id.replace(/^tmpl_/, "tpl_") });
    expect(tpl.status).toBe(201);
    // kba_required is settable only for new
    expect((await t.as("POST", "/bulk-send", { name: "A", document_source: "template", source_template_id: kbaTemplate.template_id, kba_required: false })).status).toBe(422);
    const fresh = await t.as("POST", "/bulk-send", { name: "A", document_source: "new", kba_required: true });
    expect(fresh.body.data).toMatchObject({ kba_required: true, provider_instance: "cloud" });
    expect((await t.as("POST", "/bulk-send", { name: "A", document_source: "template" })).status).toBe(422);
    expect((await t.as("POST", "/bulk-send", { name: "A", document_source: "package", source_package_id: "pkg_nope" })).status).toBe(422);
    const member = await memberToken(t.orgId, "member");
    expect((await t.as("POST", "/bulk-send", { name: "A", document_source: "new" }, member)).status).toBe(403);
    expect((await t.as("POST", "/bulk-send", { name: "A", document_source: "new" }, "nope")).status).toBe(401);
  });

  it("sets the client list: foreign ids rejected, no email or the sender's own skipped, duplicates and bad sizes refused", async () => {
    const t = await bulkTenant();
    const other = await bulkTenant("Other Motors");
    const [withEmail, noEmail, sender] = await seedCustomers(t.orgId, 3, { email: (i) => [`a-${crypto.randomUUID()}@example.com`, null, t.senderEmail.toUpperCase()][i]! });
    const [foreign] = await seedCustomers(other.orgId, 1);
    const batch = (await t.as("POST", "/bulk-send", { name: "A", document_source: "new" })).body.data;
    const res = await t.as("POST", `/bulk-send/${batch.batch_id}/items`, { customer_ids: [withEmail, noEmail, foreign, sender, "cust_unknown"] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { added: 3, skipped_no_email: [noEmail, sender], rejected: [foreign, "cust_unknown"] } });
    const progress = await t.as("GET", `/bulk-send/${batch.batch_id}`);
    expect(progress.body.data.batch).toMatchObject({ status: "ready", total_count: 3, skipped_count: 2, sent_count: 0 });
    expect(progress.body.data.counts).toEqual({ pending: 1, running: 0, sent: 0, failed: 0, skipped: 2, cancelled: 0 });
    expect(progress.body.data.items.map((i: { status: string; email: string | null }) => [i.status, i.email === null])).toEqual([["pending", false], ["skipped", true], ["skipped", false]]);
    // replacing the list
    const again = await t.as("POST", `/bulk-send/${batch.batch_id}/items`, { customer_ids: [withEmail] });
    expect(again.body.data).toEqual({ added: 1, skipped_no_email: [], rejected: [] });
    expect((await t.as("GET", `/bulk-send/${batch.batch_id}`)).body.data.batch.total_count).toBe(1);

    const dup = await t.as("POST", `/bulk-send/${batch.batch_id}/items`, { customer_ids: [withEmail, withEmail] });
    expect(dup.status).toBe(422);
    expect(dup.body.details[0].path).toEqual(["customer_ids", 1]);
    expect((await t.as("POST", `/bulk-send/${batch.batch_id}/items`, { customer_ids: [] })).status).toBe(422);
    const many = Array.from({ length: 1001 }, (_, i) => `cust_${i}`);
    expect((await t.as("POST", `/bulk-send/${batch.batch_id}/items`, { customer_ids: many })).status).toBe(422);
  });

  it("answers 404 for a batch of another organization on every route", async () => {
    const t = await bulkTenant();
    const other = await bulkTenant("Other Motors");
    const { batchId } = await readyBatch(other, { n: 1 });
    const calls: [string, string, unknown?][] = [
      ["GET", ""],
      ["PATCH", "", { name: "x" }],
      ["POST", "/vault-consent", { auto_vault_enabled: false }],
      ["POST", "/items", { customer_ids: ["cust_x"] }],
      ["POST", "/submit"],
      ["POST", "/cancel"],
      ["DELETE", ""],
    ];
    for (const [method, suffix, body] of calls) expect((await t.as(method, `/bulk-send/${batchId}${suffix}`, body)).status, `${method} ${suffix}`).toBe(404);
  });

  it("refuses submit with 422 for each precondition, then 202 running, then 409", async () => {
    const t = await bulkTenant();
    const templateId = await templateWithRoles(t.key, ["client"]);
    const batch = (await t.as("POST", "/bulk-send", { name: "A", document_source: "template", source_template_id: templateId, auto_vault_enabled: true })).body.data;
    const id = batch.batch_id;
    const noMaster = await t.as("POST", `/bulk-send/${id}/submit`);
    expect(noMaster.status).toBe(422);
    expect(noMaster.body.error).toMatch(/master template/);
    expect((await t.as("POST", "/esign/builder-session", { batch_id: id })).status).toBe(201);
    const [noEmail] = await seedCustomers(t.orgId, 1, { email: () => null });
    await t.as("POST", `/bulk-send/${id}/items`, { customer_ids: [noEmail] });
    expect((await t.as("POST", `/bulk-send/${id}/submit`)).body.error).toMatch(/no client with an email/);
    await t.as("POST", `/bulk-send/${id}/items`, { customer_ids: await seedCustomers(t.orgId, 2) });
    expect((await t.as("POST", `/bulk-send/${id}/submit`)).body.error).toMatch(/terms were not accepted/);
    expect((await t.as("POST", `/bulk-send/${id}/vault-consent`, { auto_vault_enabled: true })).status).toBe(422);
    const consent = await t.as("POST", `/bulk-send/${id}/vault-consent`, { auto_vault_enabled: true, acknowledge_authoritative_copy: true });
    expect(consent.status).toBe(200);
    expect(consent.body.data.vault_in_terms_accepted_by).toBe(t.userId);
    await t.as("PATCH", `/bulk-send/${id}`, { add_me_as_signer: true });
    const parties = await t.as("POST", `/bulk-send/${id}/submit`);
    expect(parties.status).toBe(422);
    expect(parties.body.error).toMatch(/defines 1 party .* 2 signers/);
    await t.as("PATCH", `/bulk-send/${id}`, { add_me_as_signer: false });
    const submitted = await t.as("POST", `/bulk-send/${id}/submit`);
    expect(submitted.status).toBe(202);
    expect(submitted.body.data.status).toBe("running");
    expect((await t.as("POST", `/bulk-send/${id}/submit`)).status).toBe(409);
    expect((await t.as("PATCH", `/bulk-send/${id}`, { name: "late" })).status).toBe(409);
    expect((await t.as("POST", `/bulk-send/${id}/items`, { customer_ids: [noEmail] })).status).toBe(409);
    expect((await t.as("DELETE", `/bulk-send/${id}`)).status).toBe(409);
    // the acceptance is stamped onto each envelope
    const { runToEnd } = await import("../../../helpers/bulk");
    await runToEnd(id);
    const stamps = await shardDbOf(id).prepare("SELECT v.terms_accepted_by FROM vault_consents v JOIN bulk_items i ON i.envelope_id = v.envelope_id WHERE i.batch_id = ?").bind(id).all<{ terms_accepted_by: string }>();
    expect(stamps.results.map((r) => r.terms_accepted_by)).toEqual([t.userId, t.userId]);
  });

  it("answers 502 when the master template cannot be read from the signing provider, 503 when bulk send is not configured", async () => {
    const t = await bulkTenant();
    const { batchId, session } = await readyBatch(t, { n: 1 });
    // the batch's master template is a builder working copy: its provider template is a row of the batch's shard
    await shardDbOf(batchId).prepare("DELETE FROM signing_provider_templates WHERE id = ?").bind(session.provider_template_id).run();
    const res = await t.as("POST", `/bulk-send/${batchId}/submit`);
    expect(res.status).toBe(502);
    const { app } = await import("../../../../src/app");
    const other = await readyBatch(t, { n: 1 });
    const unconfigured = await app.request(
      `http://localhost/api/v2/bulk-send/${other.batchId}/submit`,
      { method: "POST", headers: { Authorization: `Bearer ${t.admin}`, "X-Org-Id": t.orgId } },
      { ...env, BULK_BATCH: undefined },
      { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext,
    );
    expect(unconfigured.status).toBe(503);
    expect(((await unconfigured.json()) as { error: string }).error).toMatch(/not configured/);
  });

  it("patches only draft or ready batches; kba_required only for new and before the editor is opened", async () => {
    const t = await bulkTenant();
    const fresh = (await t.as("POST", "/bulk-send", { name: "A", document_source: "new" })).body.data;
    const patched = await t.as("PATCH", `/bulk-send/${fresh.batch_id}`, { kba_required: true, name: "B", tag_ids: ["tag_x"], preserve_signing_order: false });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ kba_required: true, provider_instance: "cloud", name: "B", tag_ids: ["tag_x"], preserve_signing_order: false });
    const opened = await t.as("POST", "/esign/builder-session", { batch_id: fresh.batch_id });
    expect(opened.status).toBe(201);
    expect(opened.body.data).toMatchObject({ kba_required: true, provider_instance: "cloud", batch_id: fresh.batch_id, roles: [], envelope_id: null });
    expect((await t.as("PATCH", `/bulk-send/${fresh.batch_id}`, { kba_required: false })).status).toBe(409);
    const templateId = await templateWithRoles(t.key, ["client"]);
    const fromTemplate = (await t.as("POST", "/bulk-send", { name: "A", document_source: "template", source_template_id: templateId })).body.data;
    expect((await t.as("PATCH", `/bulk-send/${fromTemplate.batch_id}`, { kba_required: true })).status).toBe(409);
  });

  it("soft-deletes a draft or ready batch and archives its master template", async () => {
    const t = await bulkTenant();
    const { batchId, session } = await readyBatch(t, { n: 1 });
    const deleted = await t.as("DELETE", `/bulk-send/${batchId}`);
    expect(deleted.status).toBe(200);
    expect((await t.as("GET", `/bulk-send/${batchId}`)).status).toBe(404);
    const master = await shardDbOf(batchId).prepare("SELECT deleted_at FROM templates WHERE id = ?").bind(session.template_id).first<{ deleted_at: string | null }>();
    expect(master!.deleted_at).not.toBeNull();
  });

  it("pages the items of a 1,000-client batch while the counters cover all of them", async () => {
    const t = await bulkTenant();
    const customers = await seedCustomers(t.orgId, 1000);
    const batch = (await t.as("POST", "/bulk-send", { name: "A", document_source: "new" })).body.data;
    expect((await t.as("POST", `/bulk-send/${batch.batch_id}/items`, { customer_ids: customers })).body.data.added).toBe(1000);
    const page = await t.as("GET", `/bulk-send/${batch.batch_id}?limit=100&page=10`);
    expect(page.body.data.items).toHaveLength(100);
    expect(page.body.data.items[0].customer_id).toBe(customers[900]);
    expect(page.body.meta).toEqual({ page: 10, limit: 100, total: 1000 });
    expect(page.body.data.counts.pending).toBe(1000);
    // `offset` (before pages were page/limit) is refused, not silently read as the first page
    const offset = await t.as("GET", `/bulk-send/${batch.batch_id}?limit=100&offset=900`);
    expect(offset.status).toBe(400);
    expect(offset.body.details[0].path).toEqual(["offset"]);
    expect((await t.as("GET", `/bulk-send/${batch.batch_id}`)).body.data.items).toHaveLength(200);
  });
});

describe("operator view of a batch", () => {
  it("serves any organization's batch progress to the operator (what bulk-progress draws), 404 for an unknown batch", async () => {
    const t = await bulkTenant();
    const { batchId } = await readyBatch(t, { n: 2 });
    const res = await operator("GET", `/bulk-send/${batchId}?limit=1`);
    expect(res.status).toBe(200);
    expect(res.body.data.batch).toMatchObject({ batch_id: batchId, status: "ready", total_count: 2 });
    expect(res.body.data.counts.pending).toBe(2);
    expect(res.body.data.items).toHaveLength(1);
    expect((await operator("GET", "/bulk-send/bsb_unknown")).status).toBe(404);
  });
});

describe("builder session on a batch (spec 4.7)", () => {
  it("clones the batch's source template as its master, answers roles in order, and continues it on reopening", async () => {
    const t = await bulkTenant();
    const templateId = await templateWithRoles(t.key, ["client", "dealer"]);
    const batch = (await t.as("POST", "/bulk-send", { name: "A", document_source: "template", source_template_id: templateId, add_me_as_signer: true })).body.data;
    const first = await t.as("POST", "/esign/builder-session", { batch_id: batch.batch_id });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ batch_id: batch.batch_id, roles: ["client", "dealer"], continued: false, document_source: "template" });
    expect(first.body.data.template_id).not.toBe(templateId);
    const progress = await t.as("PATCH", `/bulk-send/${batch.batch_id}`, {});
    expect(progress.body.data.master_template_id).toBe(first.body.data.template_id);
    const again = await t.as("POST", "/esign/builder-session", { batch_id: batch.batch_id, template_id: templateId });
    expect(again.body.data).toMatchObject({ template_id: first.body.data.template_id, continued: true, roles: ["client", "dealer"] });
  });

  it("merges a package batch's members into one master", async () => {
    const t = await bulkTenant();
    const a = await templateWithRoles(t.key, ["client"]);
    const b = await templateWithRoles(t.key, ["client"]);
    const pkg = await t.as("POST", "/document-packages", { name: "Book", template_ids: [a, b] });
    expect(pkg.status).toBe(201);
    const batch = (await t.as("POST", "/bulk-send", { name: "A", document_source: "package", source_package_id: pkg.body.data.package_id })).body.data;
    const session = await t.as("POST", "/esign/builder-session", { batch_id: batch.batch_id });
    expect(session.status).toBe(201);
    expect(session.body.data).toMatchObject({ document_source: "package", roles: ["client"] });
    expect(session.body.data.source.template_ids).toEqual([a, b]);
  });

  it("answers 400 for package_template_ids or template_ids with a batch, and for envelope_id with batch_id", async () => {
    const t = await bulkTenant();
    const a = await templateWithRoles(t.key, ["client"]);
    const b = await templateWithRoles(t.key, ["client"]);
    const batch = (await t.as("POST", "/bulk-send", { name: "A", document_source: "template", source_template_id: a })).body.data;
    expect((await t.as("POST", "/esign/builder-session", { batch_id: batch.batch_id, package_id: "pkg_x", package_template_ids: [a] })).status).toBe(400);
    expect((await t.as("POST", "/esign/builder-session", { batch_id: batch.batch_id, template_ids: [a, b] })).status).toBe(400);
    expect((await t.as("POST", "/esign/builder-session", { batch_id: batch.batch_id, envelope_id: "env_x" })).status).toBe(400);
    expect((await t.as("POST", "/esign/builder-session", { batch_id: "bsb_unknown" })).status).toBe(404);
  });
});
