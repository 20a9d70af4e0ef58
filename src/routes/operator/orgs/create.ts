import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { createOrg } from "../../../services/operator/orgs";
import { CreateOrgBody, ShardIdField } from "../../../services/operator/schema";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute({
    method: "post",
    operationId: "createOrganization",
    path: "/operator/orgs",
    summary: "Create an organization",
    description:
      "The organization is placed on the open shard `shard_id` names, or else on the open shard with the fewest envelopes (ties: fewer organizations, then the lower number), answered as `shard_id`. A `shard_id` that is not an open shard, or no shard open: 422.",
    request: { body: jsonBody(CreateOrgBody) },
    responses: {
      201: jsonContent(dataOf(z.object({ org_id: z.string(), name: z.string(), shard_id: ShardIdField, created_at: z.string() })), "The new organization"),
    },
  }),
);

export const handler: AppRouteHandler<typeof route> = async (c) => c.json({ data: await createOrg(c.var.ctx, c.req.valid("json")) }, 201);
