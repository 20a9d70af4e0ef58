import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifyChain } from "../../src/services/audit/verify-chain";
import { call, newTenant, operator } from "../helpers/api";
import { memberToken } from "../helpers/templates";
import { adminToken } from "../helpers/webhooks";
import { everyDb, orgShardDb } from "../helpers/shards";

const PARALLEL = 50;

async function orgChain(orgId: string) {
  const { results } = await env.DB.prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(orgId).all<{ action: string }>();
  return results.map((r) => r.action);
}

/** The organization's `customer.created` audit entries, wherever their chain is kept. */
async function customerCreatedEntries(orgId: string) {
  let n = 0;
  for (const db of everyDb()) n += (await db.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE org_id = ? AND action = 'customer.created'").bind(orgId).first<number>("n")) ?? 0;
  return n;
}

describe("org-level writes under concurrency: an importer needs no backoff loop of its own", () => {
  it(`${PARALLEL} parallel customer creates to one organization all succeed, and the org's audit chain still verifies`, async () => {
    const t = await newTenant();
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) => operator("POST", `/orgs/${t.orgId}/customers`, { name: `Dealer client ${i}`, email: `client-${i}@example.com` })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(PARALLEL).fill(201));
    const { results } = await (await orgShardDb(t.orgId)).prepare("SELECT COUNT(*) AS n FROM customers WHERE org_id = ?").bind(t.orgId).all<{ n: number }>();
    expect(results[0]!.n).toBe(PARALLEL);
    // an operator-created customer's entry is on the customer's own chain, with the customer on the organization's shard
    expect(await customerCreatedEntries(t.orgId)).toBe(PARALLEL);
    expect(await verifyChain(env.DB, t.orgId)).toMatchObject({ verified: true });
  });

  it(`${PARALLEL} parallel console template creates all succeed`, async () => {
    const t = await newTenant();
    const admin = await memberToken(t.orgId, "admin");
    const answers = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => call("POST", "/templates", { bearer: admin, body: { name: `Imported form ${i}` } })));
    expect(answers.map((a) => a.status)).toEqual(Array(PARALLEL).fill(201));
    expect((await orgChain(t.orgId)).filter((a) => a.startsWith("template."))).toHaveLength(PARALLEL);
    expect(await verifyChain(env.DB, t.orgId)).toMatchObject({ verified: true });
  });

  it(`${PARALLEL} parallel webhook endpoint creates and updates by an admin all succeed`, async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    // 25 endpoints is the per-organization limit: 25 creates, then 25 updates of them, all at once.
    const created = await Promise.all(
      Array.from({ length: 25 }, (_, i) => call("POST", "/webhooks/endpoints", { bearer: token, body: { url: `https://hooks${i}.lender.example/esign`, events: ["*"] } })),
    );
    expect(created.map((a) => a.status)).toEqual(Array(25).fill(201));
    const writes = await Promise.all([
      ...created.map((c) => call("PATCH", `/webhooks/endpoints/${c.body.data.endpoint_id}`, { bearer: token, body: { description: "renamed" } })),
      ...created.map((c) => call("POST", `/webhooks/endpoints/${c.body.data.endpoint_id}/rotate-secret`, { bearer: token })),
    ]);
    expect(writes.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(await verifyChain(env.DB, t.orgId)).toMatchObject({ verified: true });
  });
});
