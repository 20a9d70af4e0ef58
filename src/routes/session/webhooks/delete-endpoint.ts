import { createRoute, z } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { deleteEndpoint } from "../../../services/webhooks/delete-endpoint";
import { sessionRoute } from "../common";
import { EndpointParams, TAGS } from "./params";

const Deleted = z.object({ endpoint_id: z.string(), deleted: z.literal(true) }).openapi("WebhookEndpointDeleted");

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "delete",
      operationId: "deleteWebhookEndpoint",
      path: "/webhooks/endpoints/{endpoint_id}",
      tags: TAGS,
      summary: "Delete a webhook endpoint (admin)",
      description: "Soft delete: the endpoint stops receiving events and leaves the list; its delivery log stays readable; in-flight deliveries are marked failed.",
      request: { params: EndpointParams },
      responses: { 200: jsonContent(dataOf(Deleted), "The endpoint is deleted") },
    },
    [400, 404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const result = await deleteEndpoint(c.var.ctx, { endpointId: c.req.valid("param").endpoint_id });
  return c.json({ data: result }, 200);
};
