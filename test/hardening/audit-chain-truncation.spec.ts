import { describe, expect, it } from "vitest";
import { call, createEnvelope, newTenant } from "../helpers/api";
import { memberToken } from "../helpers/templates";
import { shardDbOf } from "../helpers/shards";

describe("an envelope's audit chain with its newest entries deleted", () => {
  it("is reported as broken to the organization's admin, naming the missing entry", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key, { secured_party: { name: "Lender" } });
    expect((await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, body: { reason: "restructured" } })).status).toBe(200);
    const admin = await memberToken(t.orgId, "admin");
    const before = await call("GET", `/envelopes/${e.envelope_id}/audit/verify`, { bearer: admin });
    expect(before.body.data).toMatchObject({ verified: true, entries: 2 });

    await shardDbOf(e.envelope_id).prepare("DELETE FROM audit_log WHERE chain_id = ? AND seq = 2").bind(e.envelope_id).run();
    const after = await call("GET", `/envelopes/${e.envelope_id}/audit/verify`, { bearer: admin });
    expect(after.status).toBe(200);
    expect(after.body.data).toMatchObject({ verified: false, entries: 1, first_broken: { seq: 2, entry_id: null } });
    expect(after.body.data.first_broken.reason).toMatch(/records 2 entries/);
  });

  it("shows as a broken chain in the partner's compliance report", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key, { secured_party: { name: "Lender" } });
    expect((await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, body: { reason: "restructured" } })).status).toBe(200);
    const ok = await call("GET", `/partner/envelopes/${e.envelope_id}/compliance`, { key: t.key });
    await shardDbOf(e.envelope_id).prepare("DELETE FROM audit_log WHERE chain_id = ? AND seq = 2").bind(e.envelope_id).run();
    const tampered = await call("GET", `/partner/envelopes/${e.envelope_id}/compliance`, { key: t.key });
    expect(ok.status).toBe(200);
    expect(tampered.status).toBe(200);
    expect(JSON.stringify(ok.body)).not.toContain("does not verify");
    expect(JSON.stringify(tampered.body)).toContain("The audit chain for the envelope does not verify");
  });
});
