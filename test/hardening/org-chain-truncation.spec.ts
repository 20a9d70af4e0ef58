import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifyChain } from "../../src/services/audit/verify-chain";
import { newTenant, operator } from "../helpers/api";

/** Org-level changes an operator makes: each one an entry on the organization's chain. */
async function orgWithHistory() {
  const t = await newTenant();
  expect((await operator("POST", `/orgs/${t.orgId}/customers`, { name: "Dana Buyer", email: "dana@example.com" })).status).toBe(201);
  expect((await operator("PATCH", `/orgs/${t.orgId}`, { name: "Renamed Lender" })).status).toBe(200);
  const entries = await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ?").bind(t.orgId).first<number>("n");
  return { ...t, entries: entries! };
}

const deleteNewest = (orgId: string, count: number) =>
  env.DB.prepare("DELETE FROM audit_log WHERE chain_id = ? AND seq > (SELECT MAX(seq) FROM audit_log WHERE chain_id = ?) - ?").bind(orgId, orgId, count).run();

describe("an organization's audit chain with its newest entries deleted", () => {
  it("no longer verifies, naming the first missing entry", async () => {
    const t = await orgWithHistory();
    expect(await verifyChain(env.DB, t.orgId)).toMatchObject({ verified: true, entries: t.entries });

    await deleteNewest(t.orgId, 2);
    const after = await verifyChain(env.DB, t.orgId);
    expect(after).toMatchObject({ verified: false, entries: t.entries - 2, first_broken: { seq: t.entries - 1, entry_id: null } });
    expect(after.verified === false && after.first_broken.reason).toMatch(new RegExp(`organization records ${t.entries} entries`));
  });

  it("stays broken after later writes refill the deleted sequence numbers: the newest entry is not the recorded one", async () => {
    const t = await orgWithHistory();
    await deleteNewest(t.orgId, 1);
    // The next change is still recorded (the organization keeps working) and takes the deleted number.
    expect((await operator("PATCH", `/orgs/${t.orgId}`, { name: "Renamed again" })).status).toBe(200);
    const seqs = await env.DB.prepare("SELECT MAX(seq) AS n FROM audit_log WHERE chain_id = ?").bind(t.orgId).first<number>("n");
    expect(seqs).toBe(t.entries);

    const after = await verifyChain(env.DB, t.orgId);
    expect(after).toMatchObject({ verified: false, entries: t.entries, first_broken: { seq: t.entries } });
    expect(after.verified === false && after.first_broken.reason).toMatch(/newest entry is not the one the organization records/);
  });

  it("the organization records its chain's length and newest hash with every entry", async () => {
    const t = await orgWithHistory();
    const head = await env.DB.prepare("SELECT seq, hash FROM audit_log WHERE chain_id = ? ORDER BY seq DESC LIMIT 1").bind(t.orgId).first<{ seq: number; hash: string }>();
    const org = await env.DB.prepare("SELECT audit_seq, audit_head_hash FROM organizations WHERE id = ?").bind(t.orgId).first<{ audit_seq: number; audit_head_hash: string }>();
    expect(org).toEqual({ audit_seq: head!.seq, audit_head_hash: head!.hash });
    expect(head!.seq).toBe(t.entries);
  });
});
