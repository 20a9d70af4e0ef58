import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { createApiKey } from "../../../services/operator/api-keys/create-api-key";
import { ApiKeyWithSecretSchema, CreateApiKeyBody, OrgIdParams } from "../../../services/operator/schema";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute(
    {
      method: "post",
      operationId: "createApiKey",
      path: "/operator/orgs/{org_id}/api-keys",
      summary: "Provision a partner API key",
      description: "The raw key is in this response only; the service keeps its SHA-256.",
      request: { params: OrgIdParams, body: jsonBody(CreateApiKeyBody) },
      responses: { 201: jsonContent(dataOf(ApiKeyWithSecretSchema), "The key, with its raw value") },
    },
    [404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  const key = await createApiKey(c.var.ctx, {
    orgId: c.req.valid("param").org_id,
    scopes: body.scopes,
    rateLimitRpm: body.rate_limit_rpm,
    name: body.name,
  });
  return c.json({ data: key }, 201);
};
