import { describe, expect, it } from "vitest";
import { call, createEnvelope, envelopeBody, newTenant } from "../../../helpers/api";
import { globalDb, orgShardDb, shardDbOf } from "../../../helpers/shards";

describe("POST /partner/envelopes", () => {
  it("creates a pending envelope, provisions the customer, and answers 201 with the envelope", async () => {
    const t = await newTenant();
    const res = await call("POST", "/partner/envelopes", {
      key: t.key,
      body: envelopeBody({
        customer_email: "Jane.Doe@Example.com",
        external_id: "deal-1042",
        secured_party: { name: "First Auto Finance LLC", role: "lender" },
        prefilled_data: { vehicle_vin: "1HGCM82633A004352", down_payment: 2500 },
      }),
    });
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(data.envelope_id).toMatch(/^env_(?:[1-9][0-9]{0,3}_)?[0-9a-z]{26}$/);
    expect(data.customer_id).toMatch(/^cust_(?:[1-9][0-9]{0,3}_)?[0-9a-z]{26}$/);
    expect(data).toMatchObject({
      status: "pending",
      external_id: "deal-1042",
      vaulted: false,
      compliant: false,
      template_id: null,
      secured_party: { name: "First Auto Finance LLC", role: "lender" },
      metadata: { document_source: "new" },
    });
    expect(data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.headers.get("X-RateLimit-Limit")).toBe("1000");
  });

  it("reuses the customer for the same email (case-insensitive) within an organization", async () => {
    const t = await newTenant();
    const a = await createEnvelope(t.key, { customer_email: "same@example.com" });
    const b = await createEnvelope(t.key, { customer_email: "SAME@example.com " .trim() });
    expect(b.customer_id).toBe(a.customer_id);
    const other = await newTenant();
    const c = await createEnvelope(other.key, { customer_email: "same@example.com" });
    expect(c.customer_id).not.toBe(a.customer_id);
  });

  it("shares one customer between concurrent creates for a new address", async () => {
    const t = await newTenant();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody({ customer_email: "race@example.com" }) })),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(new Set(results.map((r) => r.body.data.customer_id)).size).toBe(1);
  });

  it("writes envelope.created into the outbox and the first audit entry with the envelope", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key, { external_id: "ref-7" });
    const event = await shardDbOf(e.envelope_id).prepare("SELECT type, org_id, data FROM events WHERE envelope_id = ?").bind(e.envelope_id).first<{ type: string; org_id: string; data: string }>();
    expect(event!.type).toBe("envelope.created");
    expect(event!.org_id).toBe(t.orgId);
    expect(JSON.parse(event!.data)).toMatchObject({ envelope_id: e.envelope_id, customer_id: e.customer_id, external_id: "ref-7", status: "pending" });
    const audit = await shardDbOf(e.envelope_id).prepare("SELECT action, seq, actor_type, actor_id FROM audit_log WHERE chain_id = ?").bind(e.envelope_id).all();
    expect(audit.results).toEqual([{ action: "envelope.created", seq: 1, actor_type: "api_key", actor_id: t.keyId }]);
  });

  it("answers 422 with zod-style issues naming each missing or invalid field", async () => {
    const t = await newTenant();
    const res = await call("POST", "/partner/envelopes", { key: t.key, body: { envelope_name: 42, customer_email: "not-an-email" } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("Validation failed");
    const byPath = Object.fromEntries(res.body.details.map((d: { path: string[] }) => [d.path.join("."), d]));
    expect(byPath.envelope_name).toMatchObject({ code: "invalid_type", expected: "string", received: "number" });
    expect(byPath.customer_name).toMatchObject({ code: "invalid_type", expected: "string", received: "undefined" });
    expect(byPath.customer_email).toMatchObject({ code: "invalid_format", expected: "email", received: "string" });
    for (const issue of res.body.details) expect(typeof issue.message).toBe("string");
  });

  it("refuses a secured_party without a name", async () => {
    const t = await newTenant();
    const res = await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody({ secured_party: { role: "lender" } }) });
    expect(res.status).toBe(422);
    expect(res.body.details[0].path).toEqual(["secured_party", "name"]);
  });

  it("refuses an unknown template_id with 422 and creates nothing", async () => {
    const t = await newTenant();
    const res = await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody({ template_id: "tmpl_unknown" }) });
    expect(res.status).toBe(422);
    expect(res.body.details[0].path).toEqual(["template_id"]);
    const count = await (await orgShardDb(t.orgId)).prepare("SELECT COUNT(*) AS n FROM envelopes WHERE org_id = ?").bind(t.orgId).first<{ n: number }>();
    expect(count!.n).toBe(0);
  });

  it("answers 400 for malformed JSON and 415 without a JSON content type", async () => {
    const t = await newTenant();
    const bad = await call("POST", "/partner/envelopes", { key: t.key, raw: '{"envelope_name": ', headers: { "Content-Type": "application/json" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("Malformed JSON in request body");
    const plain = await call("POST", "/partner/envelopes", { key: t.key, raw: JSON.stringify(envelopeBody()), headers: { "Content-Type": "text/plain" } });
    expect(plain.status).toBe(415);
    expect(plain.body.error).toMatch(/application\/json/);
    const none = await call("POST", "/partner/envelopes", { key: t.key, raw: JSON.stringify(envelopeBody()) });
    expect(none.status).toBe(415);
  });

  it("answers 413 for a body over 1 MB", async () => {
    const t = await newTenant();
    const res = await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody({ envelope_name: "x".repeat(1_100_000) }) });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatch(/too large/i);
  });
});

describe("Idempotency-Key on POST /partner/envelopes", () => {
  it("replays the first response for a retry with the same key and body, creating one envelope", async () => {
    const t = await newTenant();
    const body = envelopeBody();
    const headers = { "Idempotency-Key": "retry-1" };
    const first = await call("POST", "/partner/envelopes", { key: t.key, body, headers });
    const second = await call("POST", "/partner/envelopes", { key: t.key, body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    const count = await (await orgShardDb(t.orgId)).prepare("SELECT COUNT(*) AS n FROM envelopes WHERE org_id = ?").bind(t.orgId).first<{ n: number }>();
    expect(count!.n).toBe(1);
  });

  it("creates exactly one envelope when the same request races itself", async () => {
    const t = await newTenant();
    const body = envelopeBody();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => call("POST", "/partner/envelopes", { key: t.key, body, headers: { "Idempotency-Key": "race" } })),
    );
    for (const r of results) expect([201, 409]).toContain(r.status);
    const count = await (await orgShardDb(t.orgId)).prepare("SELECT COUNT(*) AS n FROM envelopes WHERE org_id = ?").bind(t.orgId).first<{ n: number }>();
    expect(count!.n).toBe(1);
    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.data.envelope_id));
    expect(ids.size).toBe(1);
  });

  it("refuses the same key with another body with 422", async () => {
    const t = await newTenant();
    await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody(), headers: { "Idempotency-Key": "k" } });
    const res = await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody(), headers: { "Idempotency-Key": "k" } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/Idempotency-Key/);
    expect(res.body.code).toBe("idempotency_key_reused");
    expect(res.body.details).toEqual([expect.objectContaining({ path: ["Idempotency-Key"], received: "k" })]);
  });

  it("keeps keys per API key: the same key string from another tenant is a new request", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const body = envelopeBody();
    const ra = await call("POST", "/partner/envelopes", { key: a.key, body, headers: { "Idempotency-Key": "shared" } });
    const rb = await call("POST", "/partner/envelopes", { key: b.key, body, headers: { "Idempotency-Key": "shared" } });
    expect(rb.status).toBe(201);
    expect(rb.body.data.envelope_id).not.toBe(ra.body.data.envelope_id);
  });

  it("lets a key be reused after 24 hours", async () => {
    const t = await newTenant();
    const first = await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody(), headers: { "Idempotency-Key": "old" } });
    await globalDb.prepare("UPDATE idempotency_keys SET created_at = ? WHERE key_id = ?").bind(new Date(Date.now() - 25 * 3600_000).toISOString(), t.keyId).run();
    const again = await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody(), headers: { "Idempotency-Key": "old" } });
    expect(again.status).toBe(201);
    expect(again.body.data.envelope_id).not.toBe(first.body.data.envelope_id);
  });
});
