import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../../src/app";
import { BASE, call, createEnvelope, newKey, newTenant } from "../../../helpers/api";
import { kbaStep } from "../../../helpers/kba";
import { absolute, anchor, buildPdf, failingDb, send, uploadTemplate } from "../../../helpers/templates";
import { shardDbOf } from "../../../helpers/shards";

const storedTemplate = (id: string) =>
  env.DB.prepare("SELECT * FROM templates WHERE id = ?").bind(id).first<{ org_id: string; document_key: string; document_sha256: string; page_count: number; provider_template_id: number; provider_instance: string; kba_required: number }>();

const twoPages = () => buildPdf([{ lines: [{ text: "Retail installment contract", x: 72, y: 700 }] }, { lines: [{ text: "Buyer signature", x: 72, y: 200 }] }]);

async function uploadWithEnv(key: string, broken: Partial<typeof env>, form: FormData) {
  const res = await app.request(`${BASE}/partner/templates`, { method: "POST", headers: { "X-API-Key": key }, body: form }, { ...env, ...broken }, {
    waitUntil() {},
    passThroughOnException() {},
    props: {},
  } as unknown as ExecutionContext);
  return { status: res.status, body: (await res.json()) as { error: string; details?: unknown } };
}

async function templateForm() {
  const form = new FormData();
  form.append("file", new File([(await twoPages()).bytes], "c.pdf", { type: "application/pdf" }));
  form.append("name", "Contract");
  return form;
}

describe("POST /partner/templates", () => {
  it("stores the PDF in R2 and answers 200 with the template, its provider id and its fields", async () => {
    const t = await newTenant();
    const { bytes } = await twoPages();
    const res = await uploadTemplate(t.key, {
      file: bytes,
      name: "Retail installment contract",
      externalId: "ric-v3",
      fields: [absolute("Buyer initials", [{ page: 1, x: 0.8, y: 0.9, w: 0.1, h: 0.05 }, { page: 2, x: 0.8, y: 0.9, w: 0.1, h: 0.05 }], { type: "initials", required: true }), anchor("Buyer signature", { anchor_text: "buyer signature", offset_y: -0.05 })],
    });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.template_id).toMatch(/^tmpl_[0-9a-z]{26}$/);
    expect(Number.isInteger(data.provider_template_id)).toBe(true);
    expect(data).toMatchObject({ name: "Retail installment contract", external_id: "ric-v3", page_count: 2, fields_added: 2 });
    expect(data.fields[0]).toEqual({
      name: "Buyer initials",
      type: "initials",
      role: "buyer",
      required: true,
      readonly: false,
      default_value: null,
      options: null,
      placement_mode: "absolute",
      areas: [{ page: 1, x: 0.8, y: 0.9, w: 0.1, h: 0.05 }, { page: 2, x: 0.8, y: 0.9, w: 0.1, h: 0.05 }],
    });
    expect(data.fields[1]).toMatchObject({ placement_mode: "anchor", anchor_match: { page: 2 } });
    const row = await storedTemplate(data.template_id);
    expect(row).toMatchObject({ org_id: t.orgId, page_count: 2, provider_instance: "default", kba_required: 0, provider_template_id: data.provider_template_id });
    const object = await env.DOCS.get(row!.document_key);
    const stored = new Uint8Array(await object!.arrayBuffer());
    expect(stored).toEqual(bytes);
    expect(row!.document_sha256).toBe([...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join(""));
    const audit = await env.DB.prepare("SELECT action FROM audit_log WHERE chain_id = ? AND action = 'template.created'").bind(t.orgId).first();
    expect(audit).toEqual({ action: "template.created" });
  });

  it("gives each template its own increasing integer provider_template_id", async () => {
    const t = await newTenant();
    const a = await uploadTemplate(t.key);
    const b = await uploadTemplate(t.key);
    expect(b.body.data.provider_template_id).toBeGreaterThan(a.body.data.provider_template_id);
  });

  it("accepts an empty template, and a PDF declared as application/octet-stream (the bytes decide)", async () => {
    const t = await newTenant();
    const res = await uploadTemplate(t.key, { type: "application/octet-stream" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ fields_added: 0, fields: [] });
  });

  it("answers 400 for a missing file, a missing name, or fields_json that is not JSON", async () => {
    const t = await newTenant();
    const noFile = await uploadTemplate(t.key, { file: null });
    expect(noFile.status).toBe(400);
    expect(noFile.body.error).toMatch(/file/);
    const noName = await uploadTemplate(t.key, { name: null });
    expect(noName.status).toBe(400);
    expect(noName.body.error).toMatch(/name/);
    const badJson = await uploadTemplate(t.key, { fieldsJson: "[{name: 'x'" });
    expect(badJson.status).toBe(400);
    expect(badJson.body.error).toMatch(/fields_json is not valid JSON/);
  });

  it("answers 401 without a key and 403 without envelopes:write", async () => {
    const t = await newTenant();
    expect((await uploadTemplate(undefined)).status).toBe(401);
    const reader = await newKey(t.orgId, ["envelopes:read"]);
    const res = await uploadTemplate(reader.key);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("Missing required scope: envelopes:write");
  });

  it("answers 415 when the file is not a PDF by its bytes, whatever its declared type, or the body is not multipart", async () => {
    const t = await newTenant();
    const text = await uploadTemplate(t.key, { file: new TextEncoder().encode("just some text, honestly a PDF"), type: "application/pdf" });
    expect(text.status).toBe(415);
    expect(text.body.error).toBe("Unsupported media type: the file is not a PDF");
    const fake = await uploadTemplate(t.key, { file: new TextEncoder().encode("%PDF-1.7\nnot really a document\n%%EOF") });
    expect(fake.status).toBe(415);
    const json = await call("POST", "/partner/templates", { key: t.key, body: { name: "x" } });
    expect(json.status).toBe(415);
    const keys = await env.DOCS.list({ prefix: `documents/${t.orgId}/` });
    expect(keys.objects).toHaveLength(0);
  });

  it("answers 413 above 50 MB, by Content-Length before reading and while reading a body of unknown length", async () => {
    const t = await newTenant();
    const big = new Uint8Array(50 * 1024 * 1024 + 1);
    big.set(new TextEncoder().encode("%PDF-1.7\n"));
    const declared = await uploadTemplate(t.key, { file: big });
    expect(declared.status).toBe(413);
    expect(declared.body.error).toMatch(/50 MB/);

    const boundary = "xxBOUNDARYxx";
    const head = new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`);
    const chunk = new Uint8Array(1024 * 1024);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        sent += 1;
        if (sent > 60) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const streamed = await send("POST", "/partner/templates", t.key, stream, { "Content-Type": `multipart/form-data; boundary=${boundary}` });
    expect(streamed.status).toBe(413);
    expect(sent).toBeLessThan(60); // cut off at the limit, not read to the end
  });

  it("answers 422 naming the path for coordinates above 1, negative, running off the page, or on a missing page", async () => {
    const t = await newTenant();
    const { bytes } = await twoPages();
    const res = await uploadTemplate(t.key, {
      file: bytes,
      fields: [
        absolute("a", [{ page: 1, x: 1.2, y: 0.1, w: 0.1, h: 0.1 }]),
        absolute("b", [{ page: 1, x: 0.1, y: -0.1, w: 0.1, h: 0.1 }]),
        absolute("c", [{ page: 1, x: 0.95, y: 0.1, w: 0.1, h: 0.1 }]),
        absolute("d", [{ page: 1, x: 0.1, y: 0.1, w: 0.1, h: 0.1 }, { page: 3, x: 0.1, y: 0.1, w: 0.1, h: 0.1 }]),
      ],
    });
    expect(res.status).toBe(422);
    const paths = res.body.details.map((d: { path: (string | number)[] }) => d.path.join("."));
    expect(paths).toEqual(["fields_json.0.placement.areas.0.x", "fields_json.1.placement.areas.0.y", "fields_json.2.placement.areas.0.w"]);
    expect(res.body.details[2].message).toBe("The area runs off the page: x + w = 1.05 > 1");
    const page = await uploadTemplate(t.key, { file: bytes, fields: [absolute("d", [{ page: 3, x: 0.1, y: 0.1, w: 0.1, h: 0.1 }])] });
    expect(page.status).toBe(422);
    expect(page.body.details[0]).toMatchObject({ path: ["fields_json", 0, "placement", "areas", 0, "page"], message: "Page 3 does not exist: the PDF has 2 page(s)" });
  });

  it("answers 422 for unknown keys, a bad type, a default on a signature, duplicate names, and an anchor not in the PDF", async () => {
    const t = await newTenant();
    const unknown = await uploadTemplate(t.key, { fields: [anchor("s", { anchor_text: "contract", offsetx: 0.1 })] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.details[0]).toMatchObject({ code: "unrecognized_keys", received: "offsetx" });
    const type = await uploadTemplate(t.key, { fields: [absolute("s", [{ page: 1, x: 0, y: 0, w: 0.1, h: 0.1 }], { type: "stamp" })] });
    expect(type.body.details[0]).toMatchObject({ path: ["fields_json", 0, "type"], received: '"stamp"' });
    const forged = await uploadTemplate(t.key, { fields: [absolute("s", [{ page: 1, x: 0, y: 0, w: 0.1, h: 0.1 }], { default_value: "Jane Doe" })] });
    expect(forged.status).toBe(422);
    expect(forged.body.details[0].message).toMatch(/cannot have a default/);
    const dup = await uploadTemplate(t.key, { fields: [absolute("s", [{ page: 1, x: 0, y: 0, w: 0.1, h: 0.1 }]), absolute("s", [{ page: 1, x: 0.5, y: 0, w: 0.1, h: 0.1 }])] });
    expect(dup.body.details[0]).toMatchObject({ code: "duplicate_name", path: ["fields_json", 1, "name"] });
    const missing = await uploadTemplate(t.key, { fields: [anchor("s", { anchor_text: "co-signer signature" })] });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toBe('Anchor not found: "co-signer signature" does not occur in the PDF');
    expect(missing.body.details[0]).toMatchObject({ code: "anchor_not_found", path: ["fields_json", 0, "placement", "anchor_text"] });
    const keys = await env.DOCS.list({ prefix: `documents/${t.orgId}/` });
    expect(keys.objects, "nothing is left in R2 by refused uploads").toHaveLength(0);
  });

  it("answers 422 anchor-not-found for a scanned (image-only) PDF", async () => {
    const t = await newTenant();
    const { bytes } = await buildPdf([{ image: true }]);
    const res = await uploadTemplate(t.key, { file: bytes, fields: [anchor("s", { anchor_text: "signature" })] });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^Anchor not found: .*no text layer/);
  });

  it("answers 500 when the template record cannot be persisted, and removes the stored PDF", async () => {
    const t = await newTenant();
    const res = await uploadWithEnv(t.key, { DB: failingDb(env.DB, /^\s*INSERT INTO templates/) }, await templateForm());
    expect(res.status).toBe(500);
    expect(res.body.error).toMatch(/^Template record could not be persisted/);
    expect((await env.DOCS.list({ prefix: `documents/${t.orgId}/` })).objects).toHaveLength(0);
  });

  it("answers 502 when the signing provider rejects the create", async () => {
    const t = await newTenant();
    const res = await uploadWithEnv(t.key, { DB: failingDb(env.DB, /INSERT INTO signing_provider_templates/) }, await templateForm());
    expect(res.status).toBe(502);
    expect(res.body.error).toMatch(/^Signing provider failure: the template could not be created/);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM templates WHERE org_id = ?").bind(t.orgId).first()).toEqual({ n: 0 });
  });
});

describe("POST /partner/templates with an Idempotency-Key", () => {
  it("replays the first answer to a retry of the same upload (re-encoded with a new boundary) and refuses another file", async () => {
    const t = await newTenant();
    const { bytes } = await twoPages();
    const headers = { "Idempotency-Key": `upload-${crypto.randomUUID()}` };
    const first = await uploadTemplate(t.key, { file: bytes, headers });
    expect(first.status).toBe(200);
    const retry = await uploadTemplate(t.key, { file: bytes, headers });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retry.body.data.template_id).toBe(first.body.data.template_id);
    const other = await uploadTemplate(t.key, { file: (await buildPdf([{ lines: [{ text: "Another", x: 72, y: 700 }] }])).bytes, headers });
    expect(other.status).toBe(422);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM templates WHERE org_id = ?").bind(t.orgId).first()).toEqual({ n: 1 });
  });

  it("still answers 413 above the limit without reading the body into memory first", async () => {
    const t = await newTenant();
    const big = new Uint8Array(50 * 1024 * 1024 + 1);
    big.set(new TextEncoder().encode("%PDF-1.7\n"));
    const res = await uploadTemplate(t.key, { file: big, headers: { "Idempotency-Key": `big-${crypto.randomUUID()}` } });
    expect(res.status).toBe(413);
  });
});

/** POST /partner/templates with `kba_required` as a partner sends it (a multipart text field), the PDF tagged for a buyer. */
async function uploadWithKba(key: string, kba: string | undefined) {
  const { bytes } = await buildPdf([{ lines: [{ text: "Sign here {{buyer_signature;type=signature;role=buyer;required=true}}", x: 72, y: 700 }] }]);
  const form = new FormData();
  form.append("file", new File([bytes], "contract.pdf", { type: "application/pdf" }));
  form.append("name", "Retail installment contract");
  if (kba !== undefined) form.append("kba_required", kba);
  return send("POST", "/partner/templates", key, form);
}

describe("POST /partner/templates kba_required", () => {
  it("defaults to false; `true` makes a cloud template, answered and stored", async () => {
    const t = await newTenant();
    const plain = await uploadWithKba(t.key, undefined);
    expect(plain.body.data).toMatchObject({ kba_required: false, provider_instance: "default" });
    const explicitFalse = await uploadWithKba(t.key, "false");
    expect(explicitFalse.body.data).toMatchObject({ kba_required: false, provider_instance: "default" });
    const kba = await uploadWithKba(t.key, "true");
    expect(kba.status).toBe(200);
    expect(kba.body.data).toMatchObject({ kba_required: true, provider_instance: "cloud", fields_added: 1 });
    const row = await env.DB.prepare("SELECT kba_required, provider_instance FROM templates WHERE id = ?").bind(kba.body.data.template_id).first();
    expect(row).toEqual({ kba_required: 1, provider_instance: "cloud" });
    const audit = await env.DB.prepare("SELECT data FROM audit_log WHERE chain_id = ? AND action = 'template.created' ORDER BY rowid DESC").bind(t.orgId).first<{ data: string }>();
    expect(JSON.parse(audit!.data)).toMatchObject({ template_id: kba.body.data.template_id, kba_required: true });
  });

  it("answers 422 naming kba_required for anything but true or false, and creates nothing", async () => {
    const t = await newTenant();
    for (const value of ["yes", "1", "maybe"]) {
      const res = await uploadWithKba(t.key, value);
      expect(res.status, value).toBe(422);
      expect(res.body.details, value).toEqual([expect.objectContaining({ path: ["kba_required"] })]);
    }
    expect((await call("GET", "/partner/templates", { key: t.key })).body.meta.total).toBe(0);
  });

  it("lets an API-key-only integration send a KBA envelope: envelopes from the template require KBA", async () => {
    const t = await newTenant();
    const template = await uploadWithKba(t.key, "true");
    const envelope = await createEnvelope(t.key, { template_id: template.body.data.template_id });
    const read = await call("GET", `/partner/envelopes/${envelope.envelope_id}`, { key: t.key });
    expect(read.body.data).toMatchObject({ kba_required: true, provider_instance: "cloud" });

    expect((await call("POST", `/partner/envelopes/${envelope.envelope_id}/send`, { key: t.key, body: { send_email: false } })).status).toBe(422);
    const sent = await call("POST", `/partner/envelopes/${envelope.envelope_id}/send`, { key: t.key, body: {} });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ status: "sent", kba_required: true, provider_instance: "cloud" });
    const checks = await shardDbOf(envelope.envelope_id).prepare("SELECT status FROM kba_checks WHERE envelope_id = ?").bind(envelope.envelope_id).all();
    expect(checks.results).toEqual([{ status: "required" }]);
    const slug = sent.body.data.signers[0].slug as string;
    expect((await call("GET", `/signing/${slug}`)).body.data.kba).toEqual({ required: true, status: "required" });
    expect((await kbaStep(slug)).status).toBe(200);

    // the same integration's plain template still sends without KBA
    const plain = await uploadWithKba(t.key, "false");
    const plainEnvelope = await createEnvelope(t.key, { template_id: plain.body.data.template_id });
    expect((await call("GET", `/partner/envelopes/${plainEnvelope.envelope_id}`, { key: t.key })).body.data).toMatchObject({ kba_required: false, provider_instance: "default" });
  });
});
