import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { requireContentType } from "../../../middleware/content-type";
import { requireMembership } from "../../../middleware/session-auth";
import { createEndpoint, withSecret } from "../../../services/webhooks/create-endpoint";
import { CreateEndpointBody, WebhookEndpointWithSecretSchema } from "../../../services/webhooks/schema";
import { sessionRoute } from "../common";
import { TAGS } from "./params";

export const route = createRoute(
  sessionRoute(
    {
      method: "post",
      path: "/webhooks/endpoints",
      tags: TAGS,
      summary: "Create a webhook endpoint (admin)",
      description:
        "Registers a public HTTPS URL for the selected events and returns its `whsec_` signing secret, shown only in this response. At most 25 endpoints per organization (the 26th is 422). Selectors: an event type, `<domain>.*` or `*`.",
      middleware: [requireContentType("json"), requireMembership(["admin"])] as const,
      request: { body: jsonBody(CreateEndpointBody) },
      responses: { 201: jsonContent(dataOf(WebhookEndpointWithSecretSchema), "The endpoint, with its secret (shown once)") },
    },
    [400, 415, 422],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  const { endpoint, secret } = await createEndpoint(c.env, { orgId: c.var.membership.orgId, actor: c.var.actor, ...body });
  return c.json({ data: withSecret(endpoint, secret!) }, 201);
};
