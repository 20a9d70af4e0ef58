import { inject } from "vitest";
import { call, createEnvelope, newTenant, operator } from "./api";
import { shardDbOf } from "./shards";
import { sendEnvelope, templateWithRoles } from "./signing";

export const CONNECTED_ACCOUNT = "acct_1DealerStandIn";
export const FEE_BPS = 250;

/** A tenant the operator has set up for Sign + Pay: a connected Stripe account and a 2.5 % platform fee. */
export async function payingTenant() {
  const t = await newTenant();
  const res = await operator("PATCH", `/orgs/${t.orgId}`, { stripe_account_id: CONNECTED_ACCOUNT, platform_fee_bps: FEE_BPS });
  if (res.status !== 200) throw new Error(`org update failed: ${JSON.stringify(res.body)}`);
  return t;
}

export const BUYER = { role: "buyer", email: "ann@example.com", name: "Ann Buyer" };
export const COSIGNER = { role: "cosigner", email: "cole@example.com", name: "Cole Signer" };

/**
 * A sent two-signer envelope (buyer signs first, cosigner second) asking the buyer for a payment.
 * Returns the envelope id and each signer's slug.
 */
export async function sentPayEnvelope(key: string, payment: Record<string, unknown> = {}) {
  const template = await templateWithRoles(key, ["buyer", "cosigner"]);
  const envelope = await createEnvelope(key, {
    template_id: template,
    payment: { amount_cents: 150_000, currency: "usd", payer_email: BUYER.email, ...payment },
  });
  const sent = await sendEnvelope(key, envelope.envelope_id, {
    signers: [
      { ...BUYER, routing_order: 1 },
      { ...COSIGNER, routing_order: 2 },
    ],
  });
  if (sent.status !== 200) throw new Error(`send failed: ${JSON.stringify(sent.body)}`);
  const slug = (role: string) => sent.body.data.signers.find((s: { role: string }) => s.role === role).slug as string;
  return { envelopeId: envelope.envelope_id, buyer: slug("buyer"), cosigner: slug("cosigner") };
}

/** The signer fills their signature and submits, as the signing page does. */
export const sign = (slug: string, role: string) => call("POST", `/signing/${slug}/submit`, { body: { values: { [`${role}_signature`]: `${role} signature` } } });

export async function embedToken(key: string, envelopeId: string, userEmail: string, widgetType: "sign" | "vault" = "sign") {
  return call("POST", "/embed/token", { key, body: { envelope_id: envelopeId, user_email: userEmail, widget_type: widgetType } });
}

export const paymentIntent = (token: string) => call("POST", "/embed/payment-intent", { bearer: token });
export const paymentStatus = (token: string) => call("POST", "/embed/payment-status", { bearer: token });

/** A request to the Stripe stand-in's own test API (test/global/stripe-stand-in.mjs). */
export async function standIn<T = any>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${inject("stripePort")}${path}`, body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`stand-in ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** What the stand-in counted for PaymentIntents naming the envelope. */
export const intentStats = (envelopeId: string) => standIn<{ created: number; create_requests: number; replayed: number }>(`/_stats?envelope_id=${envelopeId}`);

/** The stand-in moves the PaymentIntent and builds Stripe's signed event for it. */
export const stripeEvent = (type: string, paymentIntentId: string) =>
  standIn<{ event: { id: string; type: string }; payload: string; signature_header: string }>("/_events", { type, payment_intent: paymentIntentId });

/** Stripe's delivery of an event to the Worker: the raw body with its Stripe-Signature header. */
export const deliverWebhook = (payload: string, signature: string | null) =>
  call("POST", "/stripe/webhook", { raw: payload, headers: { "Content-Type": "application/json; charset=utf-8", ...(signature === null ? {} : { "Stripe-Signature": signature }) } });

export async function paymentRow(envelopeId: string) {
  return shardDbOf(envelopeId).prepare("SELECT * FROM payments WHERE envelope_id = ?").bind(envelopeId).first<Record<string, any>>();
}

/** The payer signs, opens the payment step and Stripe reports the payment succeeded: the payment is paid. */
export async function payFor(key: string, envelopeId: string) {
  const token = (await embedToken(key, envelopeId, BUYER.email)).body.data.token as string;
  const intent = await paymentIntent(token);
  if (intent.status !== 200 || !intent.body.data.payment_required) throw new Error(`no intent: ${JSON.stringify(intent.body)}`);
  const row = await paymentRow(envelopeId);
  const event = await stripeEvent("payment_intent.succeeded", row!.stripe_payment_intent_id);
  return deliverWebhook(event.payload, event.signature_header);
}
