import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent, partnerRoute } from "../../../lib/openapi";
import { requireContentType } from "../../../middleware/content-type";
import { requireScope } from "../../../middleware/partner-auth";
import { serviceContext } from "../../../services/context";
import { createEnvelope } from "../../../services/envelopes/create-envelope";
import { CreateEnvelopeBody, EnvelopeSchema } from "../../../services/envelopes/schema";
import { envelopeDetail } from "../../../services/envelopes/serialize";

export const route = createRoute(
  partnerRoute(
    "envelopes:write",
    {
      method: "post",
      path: "/partner/envelopes",
      summary: "Create an envelope",
      description:
        "Creates a `pending` envelope and fires `envelope.created`. The customer is found by email in your organization or provisioned on the fly. Send an `Idempotency-Key` header to make retries safe.",
      middleware: [requireContentType("json"), requireScope("envelopes:write")] as const,
      request: { body: jsonBody(CreateEnvelopeBody) },
      responses: { 201: jsonContent(dataOf(EnvelopeSchema), "The new envelope") },
    },
    [400, 415, 422],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const envelope = await createEnvelope(serviceContext(c.env, (p) => c.executionCtx.waitUntil(p)), {
    orgId: c.var.apiKey.orgId,
    actor: c.var.actor,
    body: c.req.valid("json"),
  });
  return c.json({ data: envelopeDetail(envelope) }, 201);
};
