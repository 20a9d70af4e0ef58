import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { getDeliveryDetail } from "../../../services/webhooks/get-delivery";
import { WebhookDeliveryDetailSchema } from "../../../services/webhooks/schema";
import { sessionRoute } from "../common";
import { DeliveryParams, TAGS } from "./params";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "get",
      operationId: "getWebhookDelivery",
      path: "/webhooks/deliveries/{delivery_id}",
      tags: TAGS,
      summary: "One webhook delivery, with its payload (admin)",
      description: "The delivery's state, the exact payload it sends, and every attempt so far (status code, truncated body, error, duration, next retry).",
      request: { params: DeliveryParams },
      responses: { 200: jsonContent(dataOf(WebhookDeliveryDetailSchema), "The delivery") },
    },
    [400, 404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const delivery = await getDeliveryDetail(c.var.ctx, { deliveryId: c.req.valid("param").delivery_id });
  return c.json({ data: delivery }, 200);
};
