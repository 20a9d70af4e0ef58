import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { withSecret } from "../../../services/webhooks/create-endpoint";
import { rotateSecret } from "../../../services/webhooks/rotate-secret";
import { WebhookEndpointWithSecretSchema } from "../../../services/webhooks/schema";
import { sessionRoute } from "../common";
import { EndpointParams, TAGS } from "./params";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "post",
      operationId: "rotateWebhookSecret",
      path: "/webhooks/endpoints/{endpoint_id}/rotate-secret",
      tags: TAGS,
      summary: "Rotate an endpoint's signing secret (admin)",
      description:
        "Issues a new `whsec_` secret (shown only in this response) and starts the 48 h window, ending at `grace_expires_at`, in which every delivery is also signed with the replaced secret (`X-Service-Signature-Previous`, and a second `v1,` entry in `webhook-signature`).",
      request: { params: EndpointParams },
      responses: { 200: jsonContent(dataOf(WebhookEndpointWithSecretSchema), "The endpoint, with its new secret (shown once)") },
    },
    [400, 404, 409, 415],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const { endpoint, secret } = await rotateSecret(c.var.ctx, { endpointId: c.req.valid("param").endpoint_id });
  return c.json({ data: withSecret(endpoint, secret) }, 200);
};
