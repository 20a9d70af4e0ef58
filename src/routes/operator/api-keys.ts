import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../lib/openapi";
import { createApiKey, getApiKey, rotateApiKey, updateApiKey } from "../../services/operator/api-keys";
import { ApiKeySchema, CreateApiKeyBody, KeyIdParams, OrgIdParams, PatchApiKeyBody } from "../../services/operator/schema";
import { operatorRoute } from "./common";

const RawKey = ApiKeySchema.extend({
  api_key: z.string().openapi({ description: "The raw key, shown this once", example: "lk_3f9a0c2e7b4d1f6a8c0e2b4d6f8a0c2e4b6d8f0a" }),
}).openapi("ApiKeyWithSecret");

export const createKeyRoute = createRoute(
  operatorRoute(
    {
      method: "post",
      path: "/operator/orgs/{org_id}/api-keys",
      summary: "Provision a partner API key",
      description: "The raw key is in this response only; the service keeps its SHA-256.",
      request: { params: OrgIdParams, body: jsonBody(CreateApiKeyBody) },
      responses: { 201: jsonContent(dataOf(RawKey), "The key, with its raw value") },
    },
    [404],
  ),
);
export const createKeyHandler: AppRouteHandler<typeof createKeyRoute> = async (c) => {
  const body = c.req.valid("json");
  const key = await createApiKey(c.env, {
    orgId: c.req.valid("param").org_id,
    actor: c.var.actor,
    scopes: body.scopes,
    rateLimitRpm: body.rate_limit_rpm,
    name: body.name,
  });
  return c.json({ data: key as z.infer<typeof RawKey> }, 201);
};

export const rotateKeyRoute = createRoute(
  operatorRoute(
    {
      method: "post",
      path: "/operator/api-keys/{key_id}/rotate",
      summary: "Rotate a key: a new raw key, the old one refused at once",
      request: { params: KeyIdParams },
      responses: { 200: jsonContent(dataOf(RawKey), "The key, with its new raw value") },
    },
    [404],
  ),
);
export const rotateKeyHandler: AppRouteHandler<typeof rotateKeyRoute> = async (c) =>
  c.json({ data: (await rotateApiKey(c.env, { keyId: c.req.valid("param").key_id, actor: c.var.actor })) as z.infer<typeof RawKey> }, 200);

export const patchKeyRoute = createRoute(
  operatorRoute(
    {
      method: "patch",
      path: "/operator/api-keys/{key_id}",
      summary: "Re-scope, re-limit, deactivate or reactivate a key",
      request: { params: KeyIdParams, body: jsonBody(PatchApiKeyBody) },
      responses: { 200: jsonContent(dataOf(ApiKeySchema), "The key") },
    },
    [404],
  ),
);
export const patchKeyHandler: AppRouteHandler<typeof patchKeyRoute> = async (c) => {
  const body = c.req.valid("json");
  const key = await updateApiKey(c.env, {
    keyId: c.req.valid("param").key_id,
    actor: c.var.actor,
    scopes: body.scopes,
    rateLimitRpm: body.rate_limit_rpm,
    active: body.active,
  });
  return c.json({ data: key as z.infer<typeof ApiKeySchema> }, 200);
};

export const getKeyRoute = createRoute(
  operatorRoute(
    {
      method: "get",
      path: "/operator/api-keys/{key_id}",
      summary: "Read a key's settings and last use (never its raw value)",
      request: { params: KeyIdParams },
      responses: { 200: jsonContent(dataOf(ApiKeySchema), "The key") },
    },
    [404],
  ),
);
export const getKeyHandler: AppRouteHandler<typeof getKeyRoute> = async (c) =>
  c.json({ data: (await getApiKey(c.env, c.req.valid("param").key_id)) as z.infer<typeof ApiKeySchema> }, 200);
