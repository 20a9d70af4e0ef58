import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { dataOf, ERROR_CODES_KEY, errorResponses, jsonContent } from "../../lib/openapi";
import type { EmbedEnv } from "../../middleware/embed-auth";
import { createPaymentIntent } from "../../services/embed/create-payment-intent";
import { PaymentIntentSchema } from "../../services/payments/schema";
import { embedRoute } from "./common";
import { CONSENT_GATE_ERRORS } from "../../services/signers/consent-gate";

export const route = createRoute(embedRoute({
  method: "post",
  operationId: "createPaymentIntent",
  [ERROR_CODES_KEY]: CONSENT_GATE_ERRORS,
  path: "/embed/payment-intent",
  summary: "Sign + Pay: the payer's Stripe PaymentIntent",
  description:
    "Called by the signing host, never by a partner backend: the credential is a `sign` embed token as `Authorization: Bearer <EMBED_TOKEN>`, no body. " +
    "When the token's signer is the envelope's designated payer and the payment is still due, answers the PaymentIntent's `client_secret` and the `publishable_key` for Stripe's Payment Element, with `amount_cents`, `currency` and `status: requires_payment`. " +
    "The PaymentIntent is a destination charge to the organization's connected account with the platform fee as `application_fee_amount`; it is created once (a Stripe idempotency key per payment), so repeated or concurrent calls answer the same `client_secret`. " +
    "`payment_required: false` when no payment was requested, it is already paid, the token's signer is not the payer, or the envelope is closed. 401 for a missing, expired or invalid token; 403 for a vault token, and 403 `consent_required` on an envelope asking for E-SIGN consent until the payer has consented (POST /signing/{slug}/consent); 502 when Stripe refuses; 503 when payments are not configured.",
  responses: {
    200: jsonContent(dataOf(PaymentIntentSchema), "The payment the payer makes, or `payment_required: false` (`Cache-Control: no-store`)"),
    ...errorResponses(401, 403, 415, 429, 502, 503),
  },
}));

export const handler: RouteHandler<typeof route, EmbedEnv> = async (c) => {
  const data = await createPaymentIntent(c.var.ctx, { claims: c.var.embed });
  c.header("Cache-Control", "no-store");
  return c.json({ data }, 200);
};
