import { describe, expect, it } from "vitest";
import { call, createEnvelope, newTenant } from "../../../helpers/api";
import { shardDbOf } from "../../../helpers/shards";

describe("GET /partner/envelopes", () => {
  it("lists newest first with page, limit and total", async () => {
    const t = await newTenant();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createEnvelope(t.key));
    const page1 = await call("GET", "/partner/envelopes?limit=2", { key: t.key });
    expect(page1.status).toBe(200);
    expect(page1.body.meta).toEqual({ page: 1, limit: 2, total: 5 });
    expect(page1.body.data.map((e: { envelope_id: string }) => e.envelope_id)).toEqual([made[4]!.envelope_id, made[3]!.envelope_id]);
    expect(Object.keys(page1.body.data[0]).sort()).toEqual(
      ["created_at", "customer_id", "envelope_id", "envelope_name", "external_id", "status", "updated_at"].sort(),
    );
    const page3 = await call("GET", "/partner/envelopes?limit=2&page=3", { key: t.key });
    expect(page3.body.data.map((e: { envelope_id: string }) => e.envelope_id)).toEqual([made[0]!.envelope_id]);
    const beyond = await call("GET", "/partner/envelopes?limit=2&page=9", { key: t.key });
    expect(beyond.body).toEqual({ data: [], meta: { page: 9, limit: 2, total: 5 } });
  });

  it("defaults to 20 per page and caps limit at 100", async () => {
    const t = await newTenant();
    const res = await call("GET", "/partner/envelopes", { key: t.key });
    expect(res.body.meta).toEqual({ page: 1, limit: 20, total: 0 });
    const over = await call("GET", "/partner/envelopes?limit=101", { key: t.key });
    expect(over.status).toBe(400);
    expect(over.body.details[0].path).toEqual(["limit"]);
  });

  it("filters by customer_id and by status", async () => {
    const t = await newTenant();
    const a = await createEnvelope(t.key, { customer_email: "a@example.com" });
    await createEnvelope(t.key, { customer_email: "b@example.com" });
    const c = await createEnvelope(t.key, { customer_email: "a@example.com" });
    await call("POST", `/partner/envelopes/${c.envelope_id}/void`, { key: t.key, body: { reason: "duplicate" } });

    const byCustomer = await call("GET", `/partner/envelopes?customer_id=${a.customer_id}`, { key: t.key });
    expect(byCustomer.body.meta.total).toBe(2);
    const voided = await call("GET", "/partner/envelopes?status=voided", { key: t.key });
    expect(voided.body.data.map((e: { envelope_id: string }) => e.envelope_id)).toEqual([c.envelope_id]);
    const both = await call("GET", `/partner/envelopes?status=pending&customer_id=${a.customer_id}`, { key: t.key });
    expect(both.body.data.map((e: { envelope_id: string }) => e.envelope_id)).toEqual([a.envelope_id]);
  });

  it("answers 400 for bad query parameters", async () => {
    const t = await newTenant();
    for (const q of ["page=0", "page=abc", "limit=-1", "limit=2.5", "status=signed"]) {
      const res = await call("GET", `/partner/envelopes?${q}`, { key: t.key });
      expect(res.status, q).toBe(400);
      expect(res.body.error).toMatch(/Invalid query parameters/);
    }
  });
});

describe("GET /partner/envelopes/:id and /status", () => {
  it("returns the detail with only the partner-safe metadata subset", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    // Internal metadata written by the service must never reach the partner.
    await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET metadata = json_set(metadata, '$.vault_path', 'vault/secret/path.pdf', '$.internal_note', 'x') WHERE id = ?")
      .bind(e.envelope_id)
      .run();
    const res = await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key });
    expect(res.status).toBe(200);
    expect(res.body.data.metadata).toEqual({ document_source: "new" });
    expect(JSON.stringify(res.body)).not.toContain("vault/secret");
  });

  it("serves the polling shape on /status", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const res = await call("GET", `/partner/envelopes/${e.envelope_id}/status`, { key: t.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      envelope_id: e.envelope_id,
      status: "pending",
      vaulted: false,
      compliant: false,
      signed_at: null,
      updated_at: e.updated_at,
    });
  });

  it("answers 404 for an unknown envelope", async () => {
    const t = await newTenant();
    const res = await call("GET", "/partner/envelopes/env_doesnotexist/status", { key: t.key });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Envelope not found", code: "not_found" });
  });
});

describe("GET /partner/envelopes/:id/compliance", () => {
  it("runs all 8 checks on an unvaulted envelope: chain and secured party satisfied, vault checks not", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key, { secured_party: { name: "First Auto Finance LLC" } });
    const res = await call("GET", `/partner/envelopes/${e.envelope_id}/compliance`, { key: t.key });
    expect(res.status).toBe(200);
    const { compliance, ...subject } = res.body.data;
    expect(subject).toEqual({ envelope_id: e.envelope_id, envelope_name: e.envelope_name, customer_id: e.customer_id, envelope_status: "pending" });
    expect(compliance.checks.map((c: { requirement: string }) => c.requirement)).toEqual([
      "single_authoritative_copy",
      "unique_identifiable",
      "unalterable",
      "custody_by_secured_party",
      "controlled_amendments",
      "copies_identifiable",
      "revisions_identifiable",
      "secured_party_identified",
    ]);
    expect(compliance.checks[0]).toMatchObject({ ucc_reference: "UCC §9-105(b)(1)", satisfied: false });
    expect(compliance.checks[6].satisfied).toBe(true);
    expect(compliance.checks[7]).toMatchObject({ ucc_reference: "UCC §9-105(b)(2)", satisfied: true });
    expect(compliance.score).toBe(0.25);
    expect(compliance.compliant).toBe(false);
    expect(compliance.missing_requirements).toHaveLength(6);
    expect(compliance.evaluated_at).toMatch(/\.\d{3}Z$/);
  });

  it("fails check 8 without a secured party and check 7 once the audit chain is altered", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    await shardDbOf(e.envelope_id).prepare("UPDATE audit_log SET data = json_set(data, '$.envelope_name', 'forged') WHERE chain_id = ?").bind(e.envelope_id).run();
    const res = await call("GET", `/partner/envelopes/${e.envelope_id}/compliance`, { key: t.key });
    const checks = res.body.data.compliance.checks;
    expect(checks[6].satisfied).toBe(false);
    expect(checks[7].satisfied).toBe(false);
    expect(res.body.data.compliance.score).toBe(0);
    expect(res.body.data.compliance.missing_requirements).toContain("secured_party_identified");
  });
});
