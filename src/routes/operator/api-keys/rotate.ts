import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { rotateApiKey } from "../../../services/operator/api-keys/rotate-api-key";
import { ApiKeyWithSecretSchema, KeyIdParams } from "../../../services/operator/schema";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute(
    {
      method: "post",
      operationId: "rotateApiKey",
      path: "/operator/api-keys/{key_id}/rotate",
      summary: "Rotate a key: a new raw key, the old one refused at once",
      request: { params: KeyIdParams },
      responses: { 200: jsonContent(dataOf(ApiKeyWithSecretSchema), "The key, with its new raw value") },
    },
    [404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) =>
  c.json({ data: await rotateApiKey(c.var.ctx, { keyId: c.req.valid("param").key_id }) }, 200);
