import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { getOrg } from "../../../services/operator/orgs";
import { OrgIdParams, OrgSchema } from "../../../services/operator/schema";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute(
    {
      method: "get",
      operationId: "getOrganization",
      path: "/operator/orgs/{org_id}",
      summary: "Read an organization's settings and current shard",
      request: { params: OrgIdParams },
      responses: { 200: jsonContent(dataOf(OrgSchema), "The organization") },
    },
    [404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => c.json({ data: await getOrg(c.var.ctx, { orgId: c.req.valid("param").org_id }) }, 200);
