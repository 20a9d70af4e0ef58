import type { RequestContext } from "../../lib/context";
import type { EmbedClaims } from "./tokens";
import { loadEmbedPayment } from "./embed-payment";

/**
 * POST /embed/payment-status (spec 4.4): the envelope's payment state for any embed token of the
 * envelope (the payer's page polls it after confirming; a vault widget may show it): `paid`,
 * `requires_payment`, or null when no payment was requested. It changes only when Stripe's verified
 * `payment_intent.succeeded` arrives at POST /stripe/webhook.
 */
export async function getPaymentStatus(ctx: RequestContext, input: { claims: EmbedClaims }): Promise<{ status: "requires_payment" | "paid" | null }> {
  const { payment } = await loadEmbedPayment(ctx, input.claims);
  return { status: payment?.status ?? null };
}
