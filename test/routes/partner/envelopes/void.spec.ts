import { describe, expect, it } from "vitest";
import { call, createEnvelope, newTenant } from "../../../helpers/api";
import { shardDbOf } from "../../../helpers/shards";

async function setStatus(envelopeId: string, status: string) {
  await shardDbOf(envelopeId).prepare("UPDATE envelopes SET status = ? WHERE id = ?").bind(status, envelopeId).run();
}

describe("POST /partner/envelopes/:id/void", () => {
  it("voids an open envelope, records the reason and fires envelope.voided", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const res = await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, body: { reason: "Deal restructured" } });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe("voided");
    const events = await shardDbOf(e.envelope_id).prepare("SELECT type, data FROM events WHERE envelope_id = ? ORDER BY created_at").bind(e.envelope_id).all<{ type: string; data: string }>();
    expect(events.results.map((r) => r.type)).toEqual(["envelope.created", "envelope.voided"]);
    expect(JSON.parse(events.results[1]!.data)).toMatchObject({ status: "voided", reason: "Deal restructured", customer_id: e.customer_id });
    const row = await shardDbOf(e.envelope_id).prepare("SELECT voided_reason FROM envelopes WHERE id = ?").bind(e.envelope_id).first<{ voided_reason: string }>();
    expect(row!.voided_reason).toBe("Deal restructured");
  });

  it("refuses a completed envelope with 422 naming the status, and changes nothing", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    await setStatus(e.envelope_id, "completed");
    const res = await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, body: { reason: "x" } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("Cannot void an envelope with status completed");
    // the facts as an issue a client can read field by field, not one JSON string
    expect(res.body.details).toEqual([
      expect.objectContaining({ code: "invalid_status", path: ["status"], received: "completed", message: "Cannot void an envelope with status completed", expected: expect.stringMatching(/^an envelope with status .*sent/) }),
    ]);
    const events = await shardDbOf(e.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ?").bind(e.envelope_id).first<{ n: number }>();
    expect(events!.n).toBe(1);
  });

  it("needs a reason", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const res = await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, body: {} });
    expect(res.status).toBe(422);
    expect(res.body.details[0].path).toEqual(["reason"]);
  });

  it("lets exactly one of two concurrent voids through", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const results = await Promise.all([1, 2, 3].map((i) => call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, body: { reason: `r${i}` } })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expect([409, 422]).toContain(r.status);
    const events = await shardDbOf(e.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ? AND type = 'envelope.voided'").bind(e.envelope_id).first<{ n: number }>();
    expect(events!.n).toBe(1);
  });
});
