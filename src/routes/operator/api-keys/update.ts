import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { updateApiKey } from "../../../services/operator/api-keys/update-api-key";
import { ApiKeySchema, KeyIdParams, PatchApiKeyBody } from "../../../services/operator/schema";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute(
    {
      method: "patch",
      operationId: "updateApiKey",
      path: "/operator/api-keys/{key_id}",
      summary: "Re-scope, re-limit, deactivate or reactivate a key",
      request: { params: KeyIdParams, body: jsonBody(PatchApiKeyBody) },
      responses: { 200: jsonContent(dataOf(ApiKeySchema), "The key") },
    },
    [404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  const key = await updateApiKey(c.var.ctx, {
    keyId: c.req.valid("param").key_id,
    scopes: body.scopes,
    rateLimitRpm: body.rate_limit_rpm,
    active: body.active,
  });
  return c.json({ data: key }, 200);
};
