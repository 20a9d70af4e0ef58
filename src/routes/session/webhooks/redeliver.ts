import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { redeliver } from "../../../services/webhooks/redeliver";
import { WebhookDeliverySchema } from "../../../services/webhooks/schema";
import { sessionRoute } from "../common";
import { DeliveryParams, TAGS } from "./params";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "post",
      operationId: "redeliverWebhook",
      path: "/webhooks/deliveries/{delivery_id}/redeliver",
      tags: TAGS,
      summary: "Replay a delivery (admin)",
      description:
        "Creates a new delivery linked by `redelivery_of`, with the original `event_id` and payload, sent on the next delivery sweep (within a minute) with the full retry schedule. 409 if the endpoint is disabled or deleted.",
      request: { params: DeliveryParams },
      responses: { 202: jsonContent(dataOf(WebhookDeliverySchema), "The new delivery, pending") },
    },
    [400, 404, 409, 415],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const delivery = await redeliver(c.var.ctx, { deliveryId: c.req.valid("param").delivery_id });
  return c.json({ data: delivery }, 202);
};
