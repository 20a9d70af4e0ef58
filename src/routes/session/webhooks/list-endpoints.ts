import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { jsonContent, listOf } from "../../../lib/openapi";
import { requireMembership } from "../../../middleware/session-auth";
import { listEndpoints } from "../../../services/webhooks/list-endpoints";
import { WEBHOOK_ENDPOINT_LIMIT, WebhookEndpointSchema } from "../../../services/webhooks/schema";
import { sessionRoute } from "../common";
import { TAGS } from "./params";

export const route = createRoute(
  sessionRoute({
    method: "get",
    path: "/webhooks/endpoints",
    tags: TAGS,
    summary: "List webhook endpoints (admin)",
    description: `The organization's endpoints, oldest first (at most ${WEBHOOK_ENDPOINT_LIMIT}, so one page). Secrets are never listed.`,
    middleware: [requireMembership(["admin"])] as const,
    responses: { 200: jsonContent(listOf(WebhookEndpointSchema), "The endpoints") },
  }),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const rows = await listEndpoints(c.env.DB, c.var.membership.orgId);
  return c.json({ data: rows, meta: { page: 1, limit: WEBHOOK_ENDPOINT_LIMIT, total: rows.length } }, 200);
};
