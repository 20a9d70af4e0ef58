import { describe, expect, it } from "vitest";
import { call, createEnvelope, newTenant } from "../helpers/api";
import { allShardDbs, shardDbOf } from "../helpers/shards";

describe("tenant isolation", () => {
  it("answers 404 to every read and write of another organization's envelope, and changes nothing", async () => {
    const owner = await newTenant({ name: "Owner Bank" });
    const intruder = await newTenant({ name: "Intruder Motors" });
    const e = await createEnvelope(owner.key, { secured_party: { name: "Owner Bank" } });
    const id = e.envelope_id;

    const attempts = [
      call("GET", `/partner/envelopes/${id}`, { key: intruder.key }),
      call("GET", `/partner/envelopes/${id}/status`, { key: intruder.key }),
      call("GET", `/partner/envelopes/${id}/compliance`, { key: intruder.key }),
      call("POST", `/partner/envelopes/${id}/void`, { key: intruder.key, body: { reason: "hostile" } }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Envelope not found", code: "not_found" });
    }
    const row = await shardDbOf(id).prepare("SELECT status, audit_seq FROM envelopes WHERE id = ?").bind(id).first();
    expect(row).toEqual({ status: "pending", audit_seq: 1 });
  });

  it("never lists or filters into another organization's envelopes or customers", async () => {
    const owner = await newTenant();
    const intruder = await newTenant();
    const e = await createEnvelope(owner.key);
    const list = await call("GET", `/partner/envelopes?customer_id=${e.customer_id}`, { key: intruder.key });
    expect(list.body).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0 } });
    const all = await call("GET", "/partner/envelopes?limit=100", { key: intruder.key });
    expect(all.body.data).toEqual([]);
  });

  it("provisions a separate customer per organization for the same email", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const ea = await createEnvelope(a.key, { customer_email: "shared@example.com" });
    const eb = await createEnvelope(b.key, { customer_email: "shared@example.com" });
    expect(ea.customer_id).not.toBe(eb.customer_id);
    // the two organizations may be placed on different shards: every shard is read
    const rows = (await Promise.all(allShardDbs().map((db) => db.prepare("SELECT org_id FROM customers WHERE email_normalized = 'shared@example.com'").all<{ org_id: string }>()))).flatMap((r) => r.results);
    expect(rows.map((r) => r.org_id).sort()).toEqual([a.orgId, b.orgId].sort());
  });
});
