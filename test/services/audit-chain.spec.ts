import { describe, expect, it } from "vitest";
import { hashEntry, type AuditEntry } from "../../src/services/audit/chain";
import { verifyChain } from "../../src/services/audit/verify-chain";
import { call, createEnvelope, newTenant, operator } from "../helpers/api";
import { shardDbOf } from "../helpers/shards";

async function envelopeWithHistory() {
  const t = await newTenant();
  const e = await createEnvelope(t.key, { secured_party: { name: "Lender" } });
  await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, body: { reason: "restructured" } });
  return { t, e };
}

describe("hash-chained audit log", () => {
  it("verifies an untouched chain", async () => {
    const { e } = await envelopeWithHistory();
    const result = await verifyChain(shardDbOf(e.envelope_id), e.envelope_id);
    expect(result).toMatchObject({ verified: true, entries: 2 });
  });

  it("detects an edited row and names it", async () => {
    const { e } = await envelopeWithHistory();
    await shardDbOf(e.envelope_id).prepare("UPDATE audit_log SET data = json_set(data, '$.reason', 'nothing to see') WHERE chain_id = ? AND seq = 2").bind(e.envelope_id).run();
    const result = await verifyChain(shardDbOf(e.envelope_id), e.envelope_id);
    expect(result).toMatchObject({ verified: false, first_broken: { seq: 2, reason: expect.stringMatching(/altered/) } });
  });

  it("detects an edited actor or timestamp, a deleted entry, and a re-hashed forgery", async () => {
    const a = await envelopeWithHistory();
    await shardDbOf(a.e.envelope_id).prepare("UPDATE audit_log SET actor_id = 'key_someoneelse' WHERE chain_id = ? AND seq = 1").bind(a.e.envelope_id).run();
    expect(await verifyChain(shardDbOf(a.e.envelope_id), a.e.envelope_id)).toMatchObject({ verified: false, first_broken: { seq: 1 } });

    const b = await envelopeWithHistory();
    await shardDbOf(b.e.envelope_id).prepare("DELETE FROM audit_log WHERE chain_id = ? AND seq = 1").bind(b.e.envelope_id).run();
    expect(await verifyChain(shardDbOf(b.e.envelope_id), b.e.envelope_id)).toMatchObject({ verified: false, first_broken: { seq: 2 } });

    // A forger who edits an entry and recomputes its own hash still breaks the next entry's link.
    const c = await envelopeWithHistory();
    const row = await shardDbOf(c.e.envelope_id).prepare("SELECT * FROM audit_log WHERE chain_id = ? AND seq = 1").bind(c.e.envelope_id).first<AuditEntry & { hash: string; data: string }>();
    const { hash: _old, ...entry } = row!;
    const forged = { ...entry, data: { ...JSON.parse(entry.data), envelope_name: "forged" } };
    await shardDbOf(c.e.envelope_id).prepare("UPDATE audit_log SET data = ?, hash = ? WHERE id = ?").bind(JSON.stringify(forged.data), await hashEntry(forged), entry.id).run();
    expect(await verifyChain(shardDbOf(c.e.envelope_id), c.e.envelope_id)).toMatchObject({ verified: false, first_broken: { seq: 2, reason: expect.stringMatching(/previous entry/) } });
  });

  it("is exposed to organization admins through the console, and refused to other roles", async () => {
    const { t, e } = await envelopeWithHistory();
    const admin = await operator("POST", `/orgs/${t.orgId}/users`, { email: `admin-${t.orgId}@example.com`, name: "Ada Admin", role: "admin" });
    const member = await operator("POST", `/orgs/${t.orgId}/users`, { email: `member-${t.orgId}@example.com`, name: "Mo Member", role: "member" });
    const adminToken = (await operator("POST", `/users/${admin.body.data.user_id}/access-tokens`, { org_id: t.orgId })).body.data.access_token;
    const memberToken = (await operator("POST", `/users/${member.body.data.user_id}/access-tokens`, { org_id: t.orgId })).body.data.access_token;

    const ok = await call("GET", `/envelopes/${e.envelope_id}/audit/verify`, { bearer: adminToken });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ envelope_id: e.envelope_id, verified: true, entries: 2 });

    await shardDbOf(e.envelope_id).prepare("UPDATE audit_log SET action = 'envelope.nothing' WHERE chain_id = ? AND seq = 2").bind(e.envelope_id).run();
    const broken = await call("GET", `/envelopes/${e.envelope_id}/audit/verify`, { bearer: adminToken });
    expect(broken.body.data).toMatchObject({ verified: false, first_broken: { seq: 2 } });

    const denied = await call("GET", `/envelopes/${e.envelope_id}/audit/verify`, { bearer: memberToken });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatch(/admin/);
  });
});
