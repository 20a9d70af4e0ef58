import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { UpdateEndpointBody, WebhookEndpointSchema } from "../../../services/webhooks/schema";
import { updateEndpoint } from "../../../services/webhooks/update-endpoint";
import { sessionRoute } from "../common";
import { EndpointParams, TAGS } from "./params";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "patch",
      operationId: "updateWebhookEndpoint",
      path: "/webhooks/endpoints/{endpoint_id}",
      tags: TAGS,
      summary: "Update a webhook endpoint (admin)",
      description:
        "Changes `url`, `description`, `events` or `is_active`. `is_active: false` stops retries at once: the endpoint's in-flight deliveries are marked failed. Unknown fields are refused (422).",
      request: { params: EndpointParams, body: jsonBody(UpdateEndpointBody) },
      responses: { 200: jsonContent(dataOf(WebhookEndpointSchema), "The updated endpoint") },
    },
    [400, 404, 415, 422, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const endpoint = await updateEndpoint(c.var.ctx, {
    endpointId: c.req.valid("param").endpoint_id,
    patch: c.req.valid("json"),
  });
  return c.json({ data: endpoint }, 200);
};
