import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { createOrg } from "../../../services/operator/orgs";
import { CreateOrgBody } from "../../../services/operator/schema";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute({
    method: "post",
    operationId: "createOrganization",
    path: "/operator/orgs",
    summary: "Create an organization",
    request: { body: jsonBody(CreateOrgBody) },
    responses: { 201: jsonContent(dataOf(z.object({ org_id: z.string(), name: z.string(), created_at: z.string() })), "The new organization") },
  }),
);

export const handler: AppRouteHandler<typeof route> = async (c) => c.json({ data: await createOrg(c.var.ctx, { name: c.req.valid("json").name }) }, 201);
