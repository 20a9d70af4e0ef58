import { describe, expect, it } from "vitest";
import { shardOf } from "../../src/lib/shards";
import { operator } from "../helpers/api";
import { BUYER, deliverWebhook, embedToken, paymentIntent, paymentRow, paymentStatus, payingTenant, sentPayEnvelope, sign, stripeEvent } from "../helpers/payments";
import { globalDb, shardDb } from "../helpers/shards";

/**
 * Sign + Pay on a second shard (docs/decisions/shards.md 4, "Stripe webhook"): the payment id names
 * the envelope's shard, the PaymentIntent's metadata carries it, and Stripe's webhook (which names no
 * record in its path) is handled, recorded and de-duplicated on that shard. Needs the test pool to
 * bind SHARD_2 (a separate database).
 */

async function payingTenantOnShard2() {
  const t = await payingTenant();
  const open = await operator("PATCH", "/shards/2", { state: "open" });
  expect(open.status, `the test pool binds SHARD_2: ${JSON.stringify(open.body)}`).toBe(200);
  const moved = await operator("PATCH", `/orgs/${t.orgId}`, { current_shard_id: 2 });
  expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  return t;
}

const stripeEventsOn = (db: D1Database, eventId: string) =>
  db.prepare("SELECT outcome, payment_id FROM stripe_events WHERE id = ?").bind(eventId).all<{ outcome: string; payment_id: string | null }>().then((r) => r.results);

describe("a payment on shard 2", () => {
  it("is tagged with shard 2; Stripe's success lands there once, and the re-sent event is a duplicate", async () => {
    const t = await payingTenantOnShard2();
    const e = await sentPayEnvelope(t.key);
    expect(shardOf(e.envelopeId)).toBe(2);
    const created = await paymentRow(e.envelopeId);
    expect(created, "the payment row is on the envelope's shard").not.toBeNull();
    expect(created!.id).toMatch(/^pay_2_[0-9a-z]{26}$/);

    expect((await sign(e.buyer, "buyer")).status).toBe(200);
    const token = (await embedToken(t.key, e.envelopeId, BUYER.email)).body.data.token as string;
    const intent = await paymentIntent(token);
    expect(intent.status, JSON.stringify(intent.body)).toBe(200);
    expect(intent.body.data).toMatchObject({ payment_required: true, amount_cents: 150_000 });
    const intentId = (await paymentRow(e.envelopeId))!.stripe_payment_intent_id as string;
    expect(intentId).toBeTruthy();

    const event = await stripeEvent("payment_intent.succeeded", intentId);
    const first = await deliverWebhook(event.payload, event.signature_header);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ received: true, outcome: "paid" });

    const paid = await paymentRow(e.envelopeId);
    expect(paid).toMatchObject({ status: "paid", stripe_payment_intent_id: intentId });
    expect(await stripeEventsOn(shardDb(2), event.event.id)).toEqual([{ outcome: "paid", payment_id: created!.id }]);
    // recorded where the payment is, not in the global database
    expect(await stripeEventsOn(globalDb, event.event.id)).toEqual([]);
    const audit = (await shardDb(2).prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(e.envelopeId).all<{ action: string }>()).results.map((r) => r.action);
    expect(audit.filter((a) => a === "envelope.payment_paid")).toHaveLength(1);

    // Stripe re-sends the same event: it routes to the same shard, is found there, and changes nothing
    const again = await deliverWebhook(event.payload, event.signature_header);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ received: true, outcome: "duplicate" });
    expect(await stripeEventsOn(shardDb(2), event.event.id)).toHaveLength(1);
    const after = (await shardDb(2).prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(e.envelopeId).all<{ action: string }>()).results.map((r) => r.action);
    expect(after.filter((a) => a === "envelope.payment_paid")).toHaveLength(1);

    // the payer's embed page sees it paid (the token's envelope names shard 2)
    expect((await paymentStatus(token)).body.data).toEqual({ status: "paid" });
  });

  it("a failed payment is recorded on shard 2 and leaves the payment due", async () => {
    const t = await payingTenantOnShard2();
    const e = await sentPayEnvelope(t.key);
    await sign(e.buyer, "buyer");
    const token = (await embedToken(t.key, e.envelopeId, BUYER.email)).body.data.token as string;
    expect((await paymentIntent(token)).status).toBe(200);
    const intentId = (await paymentRow(e.envelopeId))!.stripe_payment_intent_id as string;
    const event = await stripeEvent("payment_intent.payment_failed", intentId);
    const res = await deliverWebhook(event.payload, event.signature_header);
    expect(res.body.data).toMatchObject({ outcome: "failure_recorded" });
    expect(await stripeEventsOn(shardDb(2), event.event.id)).toEqual([{ outcome: "failure_recorded", payment_id: expect.stringMatching(/^pay_2_/) }]);
    expect(await paymentRow(e.envelopeId)).toMatchObject({ status: "requires_payment" });
    expect((await paymentStatus(token)).body.data).toEqual({ status: "requires_payment" });
  });
});
