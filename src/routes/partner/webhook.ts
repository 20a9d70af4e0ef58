import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../lib/openapi";
import { setLegacyWebhook } from "../../services/webhooks/legacy-webhook";
import { LegacyWebhookBody, LegacyWebhookSchema } from "../../services/webhooks/schema";
import { partnerRoute } from "./common";
import { CREATE_ENDPOINT_ERRORS } from "../../services/webhooks/create-endpoint";

export const route = createRoute(
  partnerRoute(
    "webhooks:write",
    {
      method: "patch",
      operationId: "setLegacyWebhook",
      [ERROR_CODES_KEY]: CREATE_ENDPOINT_ERRORS,
      path: "/partner/webhook",
      tags: ["Partner", "Webhooks"],
      summary: "Set the legacy webhook URL",
      description:
        "Legacy per-key webhook configuration, kept working after the move to endpoints: writes through to the organization's migrated endpoint, subscribed to `*` and unsigned (`secret_set: false`) until an admin rotates a secret onto it; creates it on first use. `url: null` deletes it. Same URL rules as `POST /webhooks/endpoints`. Needs the dedicated scope `webhooks:write`. Once an organization admin has changed the migrated endpoint in the console, it is theirs: this route answers 409 and leaves it as the admin set it. New integrations should use the console's webhook endpoints instead.",
      request: { body: jsonBody(LegacyWebhookBody) },
      responses: { 200: jsonContent(dataOf(LegacyWebhookSchema), "The legacy webhook as it now stands") },
    },
    [400, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const result = await setLegacyWebhook(c.var.ctx, { url: c.req.valid("json").url });
  return c.json({ data: result }, 200);
};
