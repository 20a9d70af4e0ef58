import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { jsonContent } from "../../../lib/openapi";
import { listOrgs } from "../../../services/operator/orgs";
import { ShardIdField } from "../../../services/operator/schema";
import { operatorRoute } from "../common";

const Query = z.object({
  after: z.string().max(64).optional().openapi({ description: "The last org_id of the previous page (its `meta.next_after`)" }),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const route = createRoute(
  operatorRoute({
    method: "get",
    operationId: "listOrganizations",
    path: "/operator/orgs",
    summary: "List organizations with their current shard (creation order)",
    request: { query: Query },
    responses: {
      200: jsonContent(
        z.object({
          data: z.array(z.object({ org_id: z.string(), name: z.string(), shard_id: ShardIdField, created_at: z.string() })),
          meta: z.object({ next_after: z.string().nullable().openapi({ description: "Pass as `after` for the next page; null on the last" }) }),
        }),
        "A page of organizations",
      ),
    },
  }),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const { data, next_after } = await listOrgs(c.var.ctx, c.req.valid("query"));
  return c.json({ data, meta: { next_after } }, 200);
};
