import { describe, expect, it } from "vitest";
import { call, createEnvelope, envelopeBody, newTenant, operator } from "../../helpers/api";
import { sentKbaEnvelope, takeKba } from "../../helpers/kba";
import { orgShardDb } from "../../helpers/shards";

const thisMonth = () => new Date().toISOString().slice(0, 7);

/** Billing months are UTC calendar months: start well inside one, so the lines, the queries and thisMonth() agree on it. */
async function awayFromMonthEnd() {
  const now = new Date();
  const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  const left = nextMonth - now.getTime();
  if (left < 45_000) await new Promise((r) => setTimeout(r, left + 100));
}

describe("operator usage: GET /operator/orgs/:org_id/usage", () => {
  it("lists the month's verified KBA signers (400 cents each) and e-sign envelopes with the total; failed, unavailable and the sender are not billed", async () => {
    await awayFromMonthEnd();
    const s = await sentKbaEnvelope({ dealerIsSender: true });
    await takeKba(s.buyer, s.buyerEmail);
    const failed = await sentKbaEnvelope();
    await takeKba(failed.buyer, failed.buyerEmail, { wrong: true });
    await takeKba(failed.buyer, failed.buyerEmail, { wrong: true });

    const res = await operator("GET", `/orgs/${s.orgId}/usage?month=${thisMonth()}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      org_id: s.orgId,
      month: thisMonth(),
      currency: "usd",
      total_cents: 400,
      by_kind: { kba_verification: { quantity: 1, amount_cents: 400 }, esign_envelope: { quantity: 1, amount_cents: 0 } },
    });
    expect(res.body.data.lines).toEqual([
      expect.objectContaining({ kind: "esign_envelope", quantity: 1, envelope_id: s.envelopeId, signer_id: null }),
      expect.objectContaining({ kind: "kba_verification", quantity: 1, unit_cents: 400, amount_cents: 400, envelope_id: s.envelopeId, description: expect.stringContaining(s.buyerEmail) }),
    ]);
    // the month defaults to the current one; each organization sees only its own lines; a failed check verified nobody
    const other = await operator("GET", `/orgs/${failed.orgId}/usage`);
    expect(other.body.data).toMatchObject({ month: thisMonth(), total_cents: 0 });
    expect(other.body.data.lines.map((l: { kind: string; envelope_id: string }) => [l.kind, l.envelope_id])).toEqual([["esign_envelope", failed.envelopeId]]);

    const unavailable = await sentKbaEnvelope({ buyerEmail: `u.${crypto.randomUUID().slice(0, 6)}+kba-unavailable@example.com` });
    await call("GET", `/signing/${unavailable.buyer}/kba`);
    expect((await operator("GET", `/orgs/${unavailable.orgId}/usage`)).body.data).toMatchObject({ total_cents: 0, by_kind: { esign_envelope: { quantity: 1 } } });
    expect((await operator("GET", `/orgs/${unavailable.orgId}/usage`)).body.data.by_kind.kba_verification).toBeUndefined();
  }, 120_000); // up to 45 s waiting for a month to begin, once a month

  it("counts every envelope created through the API once toward e-sign usage: not again on a replayed create or a void, never for a rejected create", async () => {
    await awayFromMonthEnd();
    const t = await newTenant();
    const a = await createEnvelope(t.key);
    const b = await createEnvelope(t.key);
    const body = envelopeBody();
    const headers = { "Idempotency-Key": `usage-${crypto.randomUUID()}` };
    const first = await call("POST", "/partner/envelopes", { key: t.key, body, headers });
    const replay = await call("POST", "/partner/envelopes", { key: t.key, body, headers });
    expect(first.status).toBe(201);
    expect(replay.body.data.envelope_id).toBe(first.body.data.envelope_id);
    expect((await call("POST", `/partner/envelopes/${a.envelope_id}/void`, { key: t.key, body: { reason: "duplicate deal" } })).status).toBe(200);
    const failed = await call("POST", "/partner/envelopes", { key: t.key, body: { customer_email: "not an email" } });
    expect(failed.status).toBe(422);

    const usage = (await operator("GET", `/orgs/${t.orgId}/usage`)).body.data;
    expect(usage.by_kind).toEqual({ esign_envelope: { quantity: 3, amount_cents: 0 } });
    expect(usage.lines.map((l: { envelope_id: string }) => l.envelope_id).sort()).toEqual([a.envelope_id, b.envelope_id, first.body.data.envelope_id].sort());
    expect(usage.lines[0]).toMatchObject({ kind: "esign_envelope", quantity: 1, signer_id: null, description: expect.stringContaining(a.envelope_id) });
    // another organization's envelopes are not counted here
    const other = await newTenant();
    await createEnvelope(other.key);
    expect((await operator("GET", `/orgs/${t.orgId}/usage`)).body.data.by_kind.esign_envelope.quantity).toBe(3);
  }, 120_000);

  it("reads another month's lines only for that month", async () => {
    const t = await newTenant();
    await (await orgShardDb(t.orgId)).prepare(
      "INSERT INTO usage_lines (id, org_id, month, kind, quantity, unit_cents, envelope_id, signer_id, description, unique_key, created_at) VALUES (?, ?, '2026-01', 'kba_verification', 1, 400, NULL, NULL, 'January verification', ?, '2026-01-15T10:00:00.000Z')",
    )
      .bind(`use_${crypto.randomUUID()}`, t.orgId, `test:${crypto.randomUUID()}`)
      .run();
    expect((await operator("GET", `/orgs/${t.orgId}/usage?month=2026-01`)).body.data).toMatchObject({ total_cents: 400, lines: [expect.objectContaining({ description: "January verification" })] });
    expect((await operator("GET", `/orgs/${t.orgId}/usage?month=2026-02`)).body.data.total_cents).toBe(0);
  });

  it("answers 400 to a malformed month, 404 to an unknown organization, 401 without the operator token", async () => {
    const t = await newTenant();
    const bad = await operator("GET", `/orgs/${t.orgId}/usage?month=2026-13`);
    expect([400, 422]).toContain(bad.status);
    expect(typeof bad.body.error).toBe("string");
    expect((await operator("GET", "/orgs/org_doesnotexist/usage")).status).toBe(404);
    expect((await call("GET", `/operator/orgs/${t.orgId}/usage`)).status).toBe(401);
  });
});
