import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { getApiKey } from "../../../services/operator/api-keys/get-api-key";
import { ApiKeySchema, KeyIdParams } from "../../../services/operator/schema";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute(
    {
      method: "get",
      operationId: "getApiKey",
      path: "/operator/api-keys/{key_id}",
      summary: "Read a key's settings and last use (never its raw value)",
      request: { params: KeyIdParams },
      responses: { 200: jsonContent(dataOf(ApiKeySchema), "The key") },
    },
    [404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) =>
  c.json({ data: await getApiKey(c.var.ctx, { keyId: c.req.valid("param").key_id }) }, 200);
