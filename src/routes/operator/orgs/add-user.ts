import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { CreateUserBody, OrgIdParams } from "../../../services/operator/schema";
import { addUser } from "../../../services/operator/users";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute(
    {
      method: "post",
      operationId: "addOrganizationUser",
      path: "/operator/orgs/{org_id}/users",
      summary: "Add a console user to an organization with a role",
      request: { params: OrgIdParams, body: jsonBody(CreateUserBody) },
      responses: {
        201: jsonContent(dataOf(z.object({ user_id: z.string(), org_id: z.string(), email: z.string(), role: z.string() })), "The membership"),
      },
    },
    [404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) =>
  c.json({ data: await addUser(c.var.ctx, { orgId: c.req.valid("param").org_id, ...c.req.valid("json") }) }, 201);
