import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { OrgIdParams } from "../../../services/operator/schema";
import { getUsage } from "../../../services/usage/get-usage";
import { UsageQuery, UsageSchema } from "../../../services/usage/schema";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute(
    {
      method: "get",
      operationId: "getOrganizationUsage",
      path: "/operator/orgs/{org_id}/usage",
      summary: "An organization's billable usage of a month",
      description:
        "The usage lines of the month (UTC, `YYYY-MM`; default the current month), each with its amount, and the totals per kind and overall. KBA: one `kba_verification` line (400 cents) per verified (`passed`) client signer; none for `failed` or `unavailable`, none for the sender. E-sign: one `esign_envelope` line per envelope created (by the API or bulk send).",
      request: { params: OrgIdParams, query: UsageQuery },
      responses: { 200: jsonContent(dataOf(UsageSchema), "The month's usage") },
    },
    [400, 404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) =>
  c.json({ data: await getUsage(c.var.ctx, { orgId: c.req.valid("param").org_id, month: c.req.valid("query").month }) }, 200);
