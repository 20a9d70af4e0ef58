import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import type { EmbedEnv } from "../../middleware/embed-auth";
import { getPaymentStatus } from "../../services/embed/get-payment-status";
import { PaymentStatusSchema } from "../../services/payments/schema";
import { embedRoute } from "./common";

export const route = createRoute(embedRoute({
  method: "post",
  operationId: "getPaymentStatus",
  path: "/embed/payment-status",
  summary: "Sign + Pay: the envelope's payment state",
  description:
    "Called by the signing host with an embed token of the envelope (`Authorization: Bearer <EMBED_TOKEN>`, no body). `status` is `paid` once Stripe's `payment_intent.succeeded` has arrived, `requires_payment` before, and null when the envelope requests no payment. 401 for a missing, expired or invalid token.",
  responses: {
    200: jsonContent(dataOf(PaymentStatusSchema), "The payment state (`Cache-Control: no-store`)"),
    ...errorResponses(401, 403, 415, 429, 503),
  },
}));

export const handler: RouteHandler<typeof route, EmbedEnv> = async (c) => {
  const data = await getPaymentStatus(c.var.ctx, { claims: c.var.embed });
  c.header("Cache-Control", "no-store");
  return c.json({ data }, 200);
};
