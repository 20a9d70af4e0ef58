import type { Env } from "../../env";
import { requireSecret } from "../../lib/secrets";
import type { PaymentProcessor, ProcessorEvent } from "./interface";
import { StripeProcessor, verifyStripeWebhook } from "./stripe";

export { PaymentProcessorError, WebhookSignatureError } from "./interface";
export type { PaymentProcessor, ProcessorEvent, ProcessorIntent } from "./interface";

/**
 * The payment processor: Stripe, with STRIPE_SECRET_KEY (payments off without it: 503 naming the
 * variable) and STRIPE_API_BASE only when a stand-in replaces api.stripe.com.
 */
export function paymentProcessor(env: Env): PaymentProcessor {
  return new StripeProcessor(requireSecret(env, "STRIPE_SECRET_KEY"), env.STRIPE_API_BASE?.trim() || undefined);
}

/** Payments are on when the secret key is set (checked at create, before a payment is accepted). */
export function assertPaymentsConfigured(env: Env): void {
  requireSecret(env, "STRIPE_SECRET_KEY");
}

/** Verifies an inbound Stripe notification with STRIPE_WEBHOOK_SECRET (503 naming it when unset). */
export function paymentWebhookVerifier(env: Env): (rawBody: string, signatureHeader: string | undefined) => Promise<ProcessorEvent> {
  const secret = requireSecret(env, "STRIPE_WEBHOOK_SECRET");
  return (rawBody, signatureHeader) => verifyStripeWebhook(rawBody, signatureHeader, secret);
}
