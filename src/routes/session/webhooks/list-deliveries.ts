import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { jsonContent, listOf } from "../../../lib/openapi";
import { listDeliveries } from "../../../services/webhooks/list-deliveries";
import { ListDeliveriesQuery, WebhookDeliverySchema } from "../../../services/webhooks/schema";
import { sessionRoute } from "../common";
import { EndpointParams, TAGS } from "./params";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "get",
      operationId: "listWebhookDeliveries",
      path: "/webhooks/endpoints/{endpoint_id}/deliveries",
      tags: TAGS,
      summary: "An endpoint's delivery log (admin)",
      description: "Newest first; filter with `status` (`pending`, `succeeded`, `failed`); `limit` at most 100. Deleted endpoints keep their log.",
      request: { params: EndpointParams, query: ListDeliveriesQuery },
      responses: { 200: jsonContent(listOf(WebhookDeliverySchema), "A page of deliveries") },
    },
    [400, 404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const q = c.req.valid("query");
  const { rows, total } = await listDeliveries(c.var.ctx, {
    endpointId: c.req.valid("param").endpoint_id,
    status: q.status,
    page: q.page,
    limit: q.limit,
  });
  return c.json({ data: rows, meta: { page: q.page, limit: q.limit, total } }, 200);
};
