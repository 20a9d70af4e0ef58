import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { TestResultSchema } from "../../../services/webhooks/schema";
import { sendTestEvent } from "../../../services/webhooks/send-test-event";
import { sessionRoute } from "../common";
import { EndpointParams, TAGS } from "./params";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "post",
      operationId: "testWebhookEndpoint",
      path: "/webhooks/endpoints/{endpoint_id}/test",
      tags: TAGS,
      summary: "Send a test event (admin)",
      description:
        "Sends one signed `webhook.test` event to this endpoint now (one attempt, 10 s timeout) and reports whether it answered 2xx. The endpoint's response body is not returned. The attempt appears in the delivery log.",
      request: { params: EndpointParams },
      responses: { 200: jsonContent(dataOf(TestResultSchema), "Whether the endpoint answered 2xx") },
    },
    [400, 404, 409, 415],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const result = await sendTestEvent(c.var.ctx, { endpointId: c.req.valid("param").endpoint_id });
  return c.json({ data: result }, 200);
};
