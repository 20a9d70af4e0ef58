import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../lib/openapi";
import { AccessTokenBody, CreateUserBody, OrgIdParams, UserIdParams } from "../../services/operator/schema";
import { addUser, issueAccessToken } from "../../services/operator/users";
import { operatorRoute } from "./common";

export const createUserRoute = createRoute(
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
export const createUserHandler: AppRouteHandler<typeof createUserRoute> = async (c) =>
  c.json({ data: await addUser(c.var.ctx, { orgId: c.req.valid("param").org_id, ...c.req.valid("json") }) }, 201);

export const accessTokenRoute = createRoute(
  operatorRoute(
    {
      method: "post",
      operationId: "createAccessToken",
      path: "/operator/users/{user_id}/access-tokens",
      summary: "Mint a console access token (HS256 JWT) for a user",
      request: { params: UserIdParams, body: jsonBody(AccessTokenBody) },
      responses: {
        201: jsonContent(dataOf(z.object({ access_token: z.string(), token_type: z.string(), expires_at: z.string() })), "The access token"),
      },
    },
    [404],
  ),
);
export const accessTokenHandler: AppRouteHandler<typeof accessTokenRoute> = async (c) => {
  const body = c.req.valid("json");
  const token = await issueAccessToken(c.var.ctx, { userId: c.req.valid("param").user_id, orgId: body.org_id, ttlSeconds: body.ttl_seconds });
  return c.json({ data: token }, 201);
};
