import { describe, expect, it } from "vitest";
import { shardOf } from "../../src/lib/shards";
import { verifyChain } from "../../src/services/audit/verify-chain";
import { newTenant, operator } from "../helpers/api";
import { globalDb, orgShardDb, orgShardNumber, shardDb } from "../helpers/shards";

describe("POST /operator/orgs/:org_id/customers on the organization's shard", () => {
  it("stores the customer on the organization's current shard, its id naming that shard", async () => {
    const t = await newTenant();
    const res = await operator("POST", `/orgs/${t.orgId}/customers`, { name: "Jane Doe", email: "Jane.Doe@Example.com" });
    expect(res.status).toBe(201);
    const id: string = res.body.data.customer_id;
    const shard = await orgShardNumber(t.orgId);
    expect(id).toMatch(new RegExp(`^cust_${shard}_[0-9a-z]{26}$`));
    expect(shardOf(id)).toBe(shard);
    expect(await (await orgShardDb(t.orgId)).prepare("SELECT name FROM customers WHERE id = ?").bind(id).first("name")).toBe("Jane Doe");
  });

  it("records customer.created on the customer's own chain on its shard, not on the organization's chain", async () => {
    const t = await newTenant();
    const res = await operator("POST", `/orgs/${t.orgId}/customers`, { name: "Chain Customer" });
    const id: string = res.body.data.customer_id;
    const shard = shardDb(shardOf(id));
    const { results } = await shard.prepare("SELECT action, org_id, seq FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(id).all();
    expect(results).toEqual([{ action: "customer.created", org_id: t.orgId, seq: 1 }]);
    expect(await verifyChain(shard, id)).toMatchObject({ verified: true });
    const orgChain = await globalDb.prepare("SELECT action FROM audit_log WHERE chain_id = ?").bind(t.orgId).all<{ action: string }>();
    expect(orgChain.results.map((r) => r.action)).not.toContain("customer.created");
  });

  it("an email already used by a customer of the organization is 409 naming it, even after the organization moved shard", async () => {
    const t = await newTenant();
    const first = await operator("POST", `/orgs/${t.orgId}/customers`, { name: "Dup", email: "dup@example.com" });
    expect(first.status).toBe(201);
    expect((await operator("PATCH", "/shards/2", { state: "open" })).status).toBe(200);
    const to = (await orgShardNumber(t.orgId)) === 1 ? 2 : 1;
    expect((await operator("PATCH", `/orgs/${t.orgId}`, { current_shard_id: to })).status).toBe(200);
    const again = await operator("POST", `/orgs/${t.orgId}/customers`, { name: "Dup again", email: "DUP@example.com" });
    expect(again.status).toBe(409);
    expect(again.body.details).toEqual({ customer_id: first.body.data.customer_id });
    const other = await operator("POST", `/orgs/${t.orgId}/customers`, { name: "New here", email: "new@example.com" });
    expect(shardOf(other.body.data.customer_id)).toBe(to);
  });

  it("an unknown organization is 404", async () => {
    expect((await operator("POST", "/orgs/org_00000000000000000000000000/customers", { name: "Nobody" })).status).toBe(404);
  });
});
