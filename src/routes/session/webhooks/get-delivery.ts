import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { requireMembership } from "../../../middleware/session-auth";
import { getDeliveryDetail } from "../../../services/webhooks/get-delivery";
import { WebhookDeliveryDetailSchema } from "../../../services/webhooks/schema";
import { sessionRoute } from "../common";
import { DeliveryParams, TAGS } from "./params";

export const route = createRoute(
  sessionRoute(
    {
      method: "get",
      path: "/webhooks/deliveries/{delivery_id}",
      tags: TAGS,
      summary: "One webhook delivery, with its payload (admin)",
      description: "The delivery's state, the exact payload it sends, and every attempt so far (status code, truncated body, error, duration, next retry).",
      middleware: [requireMembership(["admin"])] as const,
      request: { params: DeliveryParams },
      responses: { 200: jsonContent(dataOf(WebhookDeliveryDetailSchema), "The delivery") },
    },
    [400, 404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const delivery = await getDeliveryDetail(c.env.DB, c.var.membership.orgId, c.req.valid("param").delivery_id);
  return c.json({ data: delivery }, 200);
};
