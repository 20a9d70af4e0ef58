import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../../lib/openapi";
import { CREATE_ENDPOINT_ERRORS, createEndpoint, withSecret } from "../../../services/webhooks/create-endpoint";
import { CreateEndpointBody, WebhookEndpointWithSecretSchema } from "../../../services/webhooks/schema";
import { sessionRoute } from "../common";
import { TAGS } from "./params";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "post",
      operationId: "createWebhookEndpoint",
      [ERROR_CODES_KEY]: CREATE_ENDPOINT_ERRORS,
      path: "/webhooks/endpoints",
      tags: TAGS,
      summary: "Create a webhook endpoint (admin)",
      description:
        "Registers a public HTTPS URL for the selected events and returns its `whsec_` signing secret, shown only in this response. At most 25 endpoints per organization (the 26th is 422). Selectors: an event type, `<domain>.*` or `*`.",
      request: { body: jsonBody(CreateEndpointBody) },
      responses: { 201: jsonContent(dataOf(WebhookEndpointWithSecretSchema), "The endpoint, with its secret (shown once)") },
    },
    [400, 415, 422, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  const { endpoint, secret } = await createEndpoint(c.var.ctx, body);
  return c.json({ data: withSecret(endpoint, secret!) }, 201);
};
