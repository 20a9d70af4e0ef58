import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import {
  BUYER,
  deliverWebhook,
  embedToken,
  paymentIntent,
  paymentRow,
  payingTenant,
  sentPayEnvelope,
  standIn,
  stripeEvent,
} from "../../helpers/payments";
import { shardDbOf } from "../../helpers/shards";

/** A payer who has opened the payment step: the envelope's PaymentIntent exists at the stand-in. */
async function openedPayment() {
  const t = await payingTenant();
  const e = await sentPayEnvelope(t.key);
  const token = (await embedToken(t.key, e.envelopeId, BUYER.email)).body.data.token as string;
  expect((await paymentIntent(token)).body.data.payment_required).toBe(true);
  const row = await paymentRow(e.envelopeId);
  return { t, e, intentId: row!.stripe_payment_intent_id as string };
}

const events = async (envelopeId: string) =>
  (await shardDbOf(envelopeId).prepare("SELECT type FROM events WHERE envelope_id = ? AND type = 'invoice.paid'").bind(envelopeId).all()).results.length;
const auditActions = async (envelopeId: string) =>
  (await shardDbOf(envelopeId).prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(envelopeId).all<{ action: string }>()).results.map((a) => a.action);
const sign = (payload: string, opts: { timestamp?: number; secret?: string } = {}) =>
  standIn<{ signature_header: string }>("/_sign", { payload, ...opts }).then((r) => r.signature_header);

describe("POST /stripe/webhook", () => {
  it("a replayed payment_intent.succeeded changes nothing: one paid, one invoice.paid, one audit entry", async () => {
    const { e, intentId } = await openedPayment();
    const event = await stripeEvent("payment_intent.succeeded", intentId);
    expect((await deliverWebhook(event.payload, event.signature_header)).body.data.outcome).toBe("paid");
    const paidAt = (await paymentRow(e.envelopeId))!.paid_at;
    const replay = await deliverWebhook(event.payload, event.signature_header);
    expect(replay.status).toBe(200);
    expect(replay.body.data).toEqual({ received: true, outcome: "duplicate" });
    // Stripe re-sends with a fresh signature timestamp: still the same event
    const resent = await deliverWebhook(event.payload, await sign(event.payload));
    expect(resent.body.data.outcome).toBe("duplicate");
    expect((await paymentRow(e.envelopeId))!.paid_at).toBe(paidAt);
    expect(await events(e.envelopeId)).toBe(1);
    expect((await auditActions(e.envelopeId)).filter((a) => a === "envelope.payment_paid")).toHaveLength(1);
  });

  it("two deliveries of the same success at once pay once", async () => {
    const { e, intentId } = await openedPayment();
    const event = await stripeEvent("payment_intent.succeeded", intentId);
    const answers = await Promise.all([deliverWebhook(event.payload, event.signature_header), deliverWebhook(event.payload, event.signature_header)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.filter((a) => a.body.data.outcome === "paid")).toHaveLength(1);
    expect(await events(e.envelopeId)).toBe(1);
    expect((await auditActions(e.envelopeId)).filter((a) => a === "envelope.payment_paid")).toHaveLength(1);
  });

  it("a forged, missing, other-secret or stale signature is 400 and records nothing", async () => {
    const { e, intentId } = await openedPayment();
    const event = await stripeEvent("payment_intent.succeeded", intentId);
    const t = Math.floor(Date.now() / 1000);
    const cases: [string, string | null][] = [
      ["missing", null],
      ["forged", `t=${t},v1=${"0".repeat(64)}`],
      ["other secret", await sign(event.payload, { secret: "whsec_someone_else" })],
      ["stale (10 minutes old)", await sign(event.payload, { timestamp: t - 600 })],
      ["garbage", "nonsense"],
    ];
    for (const [name, header] of cases) {
      const res = await deliverWebhook(event.payload, header);
      expect(res.status, name).toBe(400);
      expect(res.body.error, name).toMatch(/signature/i);
    }
    // a body changed after signing
    const tampered = event.payload.replace('"amount": 150000', '"amount": 1');
    expect((await deliverWebhook(tampered, event.signature_header)).status).toBe(400);
    expect((await paymentRow(e.envelopeId))!.status).toBe("requires_payment");
    expect(await shardDbOf(e.envelopeId).prepare("SELECT COUNT(*) AS n FROM stripe_events WHERE id = ?").bind(event.event.id).first("n")).toBe(0);
    expect(await events(e.envelopeId)).toBe(0);
  });

  it("payment_intent.payment_failed is recorded and leaves the payment requires_payment; a later success pays it", async () => {
    const { e, intentId } = await openedPayment();
    const failed = await stripeEvent("payment_intent.payment_failed", intentId);
    const res = await deliverWebhook(failed.payload, failed.signature_header);
    expect(res.body.data).toEqual({ received: true, outcome: "failure_recorded" });
    expect(await paymentRow(e.envelopeId)).toMatchObject({ status: "requires_payment", failure_count: 1, last_failure_code: "card_declined", last_failure_message: "Your card was declined." });
    expect(await auditActions(e.envelopeId)).toContain("envelope.payment_failed");
    expect(await events(e.envelopeId)).toBe(0);
    const ok = await stripeEvent("payment_intent.succeeded", intentId);
    expect((await deliverWebhook(ok.payload, ok.signature_header)).body.data.outcome).toBe("paid");
    // a failure notification arriving late (out of order) does not undo the payment
    const late = await stripeEvent("payment_intent.payment_failed", intentId);
    expect((await deliverWebhook(late.payload, late.signature_header)).body.data.outcome).toBe("ignored");
    expect((await paymentRow(e.envelopeId))!.status).toBe("paid");
  });

  it("ignores (200) event types it does not handle and intents it did not create", async () => {
    const { e, intentId } = await openedPayment();
    const other = await stripeEvent("charge.refunded", intentId);
    expect((await deliverWebhook(other.payload, other.signature_header)).body.data).toMatchObject({ received: true, outcome: "ignored" });

    // A genuine Stripe event for a PaymentIntent someone else created on the same account
    const foreign = await fetch(`${env.STRIPE_API_BASE}/v1/payment_intents`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.STRIPE_SECRET_KEY}`, "content-type": "application/x-www-form-urlencoded" },
      body: "amount=150000&currency=usd",
    }).then((r) => r.json<{ id: string }>());
    const unknown = await stripeEvent("payment_intent.succeeded", foreign.id);
    const res = await deliverWebhook(unknown.payload, unknown.signature_header);
    expect(res.status).toBe(200);
    expect(res.body.data.outcome).toBe("ignored");
    expect((await paymentRow(e.envelopeId))!.status).toBe("requires_payment");
  });

  it("never pays an envelope of another organization, nor for another amount, named in a PaymentIntent's metadata", async () => {
    const a = await openedPayment();
    const b = await openedPayment();
    const forge = async (metadata: Record<string, string>, amount = 150000) => {
      const body = new URLSearchParams({ amount: String(amount), currency: "usd" });
      for (const [k, v] of Object.entries(metadata)) body.set(`metadata[${k}]`, v);
      const pi = await fetch(`${env.STRIPE_API_BASE}/v1/payment_intents`, {
        method: "POST",
        headers: { authorization: `Bearer ${env.STRIPE_SECRET_KEY}`, "content-type": "application/x-www-form-urlencoded" },
        body,
      }).then((r) => r.json<{ id: string }>());
      const event = await stripeEvent("payment_intent.succeeded", pi.id);
      return deliverWebhook(event.payload, event.signature_header);
    };
    const rowB = (await paymentRow(b.e.envelopeId))!;
    // B's own metadata on a second intent: B already has its PaymentIntent
    const second = await forge({ payment_id: rowB.id, org_id: b.t.orgId, envelope_id: b.e.envelopeId });
    expect(second.body.data).toMatchObject({ outcome: "ignored", reason: expect.stringMatching(/another PaymentIntent/) });
    // C's payer has not opened the payment step yet (no PaymentIntent stored)
    const c = await payingTenant();
    const ce = await sentPayEnvelope(c.key);
    const rowC = (await paymentRow(ce.envelopeId))!;
    // C's payment id, but A's organization and envelope
    const crossed = await forge({ payment_id: rowC.id, org_id: a.t.orgId, envelope_id: a.e.envelopeId });
    expect(crossed.body.data).toMatchObject({ outcome: "ignored", reason: expect.stringMatching(/metadata/) });
    // C's own metadata, for another amount
    const cheap = await forge({ payment_id: rowC.id, org_id: c.orgId, envelope_id: ce.envelopeId }, 100);
    expect(cheap.body.data).toMatchObject({ outcome: "ignored", reason: expect.stringMatching(/amount/) });
    for (const envelopeId of [a.e.envelopeId, b.e.envelopeId, ce.envelopeId]) expect((await paymentRow(envelopeId))!.status).toBe("requires_payment");
  });

  it("answers 503 naming STRIPE_WEBHOOK_SECRET when it is not set", async () => {
    const { intentId } = await openedPayment();
    const event = await stripeEvent("payment_intent.succeeded", intentId);
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request("http://localhost/api/v2/stripe/webhook", { method: "POST", headers: { "content-type": "application/json", "stripe-signature": event.signature_header }, body: event.payload }),
      { ...env, STRIPE_WEBHOOK_SECRET: undefined },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toContain("STRIPE_WEBHOOK_SECRET");
  });
});
