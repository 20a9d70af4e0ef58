import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { handleStripeWebhook } from "../../services/stripe/handle-stripe-webhook";
import { publicRoute } from "../define";

const WebhookAnswer = z
  .object({
    received: z.literal(true),
    outcome: z.enum(["paid", "failure_recorded", "duplicate", "ignored"]),
    reason: z.string().optional(),
  })
  .openapi("StripeWebhookAnswer", { example: { received: true, outcome: "paid" } });

export const route = createRoute(publicRoute({
  method: "post",
  operationId: "receiveStripeWebhook",
  path: "/stripe/webhook",
  summary: "Stripe's notifications (Sign + Pay)",
  description:
    "For Stripe only: register `{base_url}/stripe/webhook` as a webhook endpoint in the Stripe dashboard for `payment_intent.succeeded` and `payment_intent.payment_failed`, and set its signing secret as STRIPE_WEBHOOK_SECRET. " +
    "No API key: the credential is the `Stripe-Signature` header over the raw body, verified with the `stripe` library (5-minute tolerance); a missing, forged or stale signature is 400 and nothing is recorded. " +
    "`payment_intent.succeeded` marks the payment `paid` once (fans out `invoice.paid`, chains an audit entry, runs a deferred auto-vault); `payment_intent.payment_failed` is recorded and the payment stays `requires_payment`. " +
    "An event already handled answers `duplicate`; other event types and intents this service did not create answer 200 `ignored`.",
  tags: ["Stripe"],
  request: {
    // Documented, not validated: the handler must verify the signature over the raw bytes Stripe sent.
    body: {
      required: true,
      description: "A Stripe event object (https://docs.stripe.com/api/events/object), exactly as Stripe sends it",
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["id", "type", "data"],
            properties: { id: { type: "string", example: "evt_1Q0aBc" }, type: { type: "string", example: "payment_intent.succeeded" }, data: { type: "object" } },
          },
        },
      },
    },
  },
  responses: {
    200: jsonContent(dataOf(WebhookAnswer), "Acknowledged"),
    ...errorResponses(400, 415, 503),
  },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const result = await handleStripeWebhook(c.var.ctx, { rawBody: await c.req.text(), signature: c.req.header("stripe-signature") });
  return c.json({ data: { received: true as const, ...result } }, 200);
};
