import { ApiError } from "../../lib/errors";
import type { RequestContext } from "../../lib/context";
import { requireSecret } from "../../lib/secrets";
import { paymentProcessor, PaymentProcessorError, type ProcessorIntent } from "../../providers/payments";
import type { EmbedClaims } from "./tokens";
import { loadEmbedPayment, PAYABLE_STATUSES } from "./embed-payment";
import { assertConsentGiven, consentApplies } from "../signers/consent-gate";
import { listSigners } from "../signers/repository";
import { intentIdempotencyKey, paymentIntentIdUpdate, type PaymentRow } from "../payments/repository";

export type PaymentIntentAnswer =
  | { payment_required: false }
  | { payment_required: true; client_secret: string; publishable_key: string; amount_cents: number; currency: string; status: "requires_payment" };

/**
 * POST /embed/payment-intent (spec 4.4, docs/decisions/sign-and-pay.md). With the payer's `sign` embed token and a
 * payment still due, answers the Stripe PaymentIntent's client secret for the Payment Element;
 * otherwise `payment_required: false` (no payment requested, already paid, the token's signer is
 * not the payer, or the envelope is closed).
 *
 * The PaymentIntent is a destination charge: `transfer_data.destination` = the organization's
 * connected account, `application_fee_amount` = the platform's fee, metadata naming the envelope,
 * organization and payment. It is created once: the first call stores its id and later calls read it
 * back; calls that race before the id is stored send the same Stripe idempotency key
 * (`payment_intent:<payment id>`) with the same parameters, so Stripe answers them all with the one
 * intent it created and no second intent (or charge) exists.
 */
export async function createPaymentIntent(ctx: RequestContext, input: { claims: EmbedClaims }): Promise<PaymentIntentAnswer> {
  const { claims, envelope, payment } = await loadEmbedPayment(ctx, input.claims, "sign");
  if (!payment || payment.status === "paid") return { payment_required: false };
  if (claims.userEmail.trim().toLowerCase() !== payment.payer_email) return { payment_required: false };
  if (!(PAYABLE_STATUSES as readonly string[]).includes(envelope.status)) return { payment_required: false };
  // E-SIGN (docs/consumer-signing.md): no step of a consumer envelope before the payer's consent, as POST /signing/:slug/payment-token
  if (consentApplies(envelope)) {
    const payer = (await listSigners(ctx.db, envelope.id)).filter((s) => s.email.trim().toLowerCase() === payment.payer_email);
    assertConsentGiven(envelope, payer.find((s) => s.consent_given_at !== null) ?? { consent_given_at: null });
  }
  const publishableKey = requireSecret(ctx.env, "STRIPE_PUBLISHABLE_KEY");
  const intent = await intentFor(ctx, payment, envelope.name);
  if (!intent.client_secret) throw new ApiError(502, "The payment processor returned a PaymentIntent without a client secret");
  return {
    payment_required: true,
    client_secret: intent.client_secret,
    publishable_key: publishableKey,
    amount_cents: payment.amount_cents,
    currency: payment.currency,
    status: "requires_payment",
  };
}

async function intentFor(ctx: RequestContext, payment: PaymentRow, envelopeName: string): Promise<ProcessorIntent> {
  const processor = paymentProcessor(ctx.env);
  try {
    if (payment.stripe_payment_intent_id) return await processor.retrievePaymentIntent(payment.stripe_payment_intent_id);
    const intent = await processor.createPaymentIntent({
      amountCents: payment.amount_cents,
      currency: payment.currency,
      destinationAccount: payment.destination_account,
      applicationFeeCents: payment.application_fee_cents,
      metadata: { envelope_id: payment.envelope_id, org_id: payment.org_id, payment_id: payment.id },
      description: `Payment for ${envelopeName}`.slice(0, 1000),
      receiptEmail: payment.payer_email,
      idempotencyKey: intentIdempotencyKey(payment),
    });
    // Racing calls got the same intent from Stripe; whichever stores it first wins, the others match it.
    await paymentIntentIdUpdate(ctx.db, payment.id, intent.id, new Date().toISOString()).run();
    return intent;
  } catch (err) {
    if (!(err instanceof PaymentProcessorError)) throw err;
    console.error(JSON.stringify({ level: "error", msg: "payment processor refused", kind: err.kind, code: err.code, payment_id: payment.id, error: err.message }));
    if (err.kind === "authentication") throw new ApiError(502, "The payment processor refused the service's credentials (STRIPE_SECRET_KEY)", { kind: err.kind });
    throw new ApiError(502, `The payment processor could not prepare the payment: ${err.message}`, { processor_code: err.code, kind: err.kind });
  }
}
