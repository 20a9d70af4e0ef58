import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, newTenant, operator } from "../../helpers/api";
import { sentKbaEnvelope, takeKba } from "../../helpers/kba";

const thisMonth = () => new Date().toISOString().slice(0, 7);

/** Billing months are UTC calendar months: start well inside one, so the lines, the queries and thisMonth() agree on it. */
async function awayFromMonthEnd() {
  const now = new Date();
  const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  const left = nextMonth - now.getTime();
  if (left < 45_000) await new Promise((r) => setTimeout(r, left + 100));
}

describe("operator usage: GET /operator/orgs/:org_id/usage", () => {
  it("lists the month's KBA verifications (passed and failed, 400 cents each) with the total; unavailable and the sender are not billed", async () => {
    await awayFromMonthEnd();
    const s = await sentKbaEnvelope({ dealerIsSender: true });
    await takeKba(s.buyer, s.buyerEmail);
    const failed = await sentKbaEnvelope();
    await takeKba(failed.buyer, failed.buyerEmail, { wrong: true });
    await takeKba(failed.buyer, failed.buyerEmail, { wrong: true });

    const res = await operator("GET", `/orgs/${s.orgId}/usage?month=${thisMonth()}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ org_id: s.orgId, month: thisMonth(), currency: "usd", total_cents: 400, by_kind: { kba_verification: { quantity: 1, amount_cents: 400 } } });
    expect(res.body.data.lines).toEqual([
      expect.objectContaining({ kind: "kba_verification", quantity: 1, unit_cents: 400, amount_cents: 400, envelope_id: s.envelopeId, description: expect.stringContaining(s.buyerEmail) }),
    ]);
    // the month defaults to the current one; each organization sees only its own lines
    const other = await operator("GET", `/orgs/${failed.orgId}/usage`);
    expect(other.body.data).toMatchObject({ month: thisMonth(), total_cents: 400 });
    expect(other.body.data.lines[0].description).toContain("(failed)");

    const unavailable = await sentKbaEnvelope({ buyerEmail: `u.${crypto.randomUUID().slice(0, 6)}+kba-unavailable@example.com` });
    await call("GET", `/signing/${unavailable.buyer}/kba`);
    expect((await operator("GET", `/orgs/${unavailable.orgId}/usage`)).body.data).toMatchObject({ lines: [], total_cents: 0 });
  }, 90_000); // up to 45 s waiting for a month to begin, once a month

  it("reads another month's lines only for that month", async () => {
    const t = await newTenant();
    await env.DB.prepare(
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
