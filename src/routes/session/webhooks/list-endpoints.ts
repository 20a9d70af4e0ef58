import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { jsonContent, listOf } from "../../../lib/openapi";
import { listEndpoints } from "../../../services/webhooks/list-endpoints";
import { WEBHOOK_ENDPOINT_LIMIT, WebhookEndpointSchema } from "../../../services/webhooks/schema";
import { sessionRoute } from "../common";
import { TAGS } from "./params";

export const route = createRoute(
  sessionRoute("admin", {
    method: "get",
    operationId: "listWebhookEndpoints",
    path: "/webhooks/endpoints",
    tags: TAGS,
    summary: "List webhook endpoints (admin)",
    description: `The organization's endpoints, oldest first (at most ${WEBHOOK_ENDPOINT_LIMIT}, so one page). Secrets are never listed.`,
    responses: { 200: jsonContent(listOf(WebhookEndpointSchema), "The endpoints") },
  }),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const rows = await listEndpoints(c.var.ctx);
  return c.json({ data: rows, meta: { page: 1, limit: WEBHOOK_ENDPOINT_LIMIT, total: rows.length } }, 200);
};
