import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { AccessTokenBody, UserIdParams } from "../../../services/operator/schema";
import { issueAccessToken } from "../../../services/operator/users";
import { operatorRoute } from "../common";

export const route = createRoute(
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

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  // the user the token is for (the path's), not the actor: the operator mints it
  const token = await issueAccessToken(c.var.ctx, { userId: c.req.valid("param").user_id, orgId: body.org_id, ttlSeconds: body.ttl_seconds });
  return c.json({ data: token }, 201);
};
