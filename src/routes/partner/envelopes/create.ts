import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../../lib/openapi";
import { createEnvelope } from "../../../services/compose/create-envelope";
import { CreateEnvelopeBody } from "../../../services/compose/schema";
import { EnvelopeSchema } from "../../../services/envelopes/schema";
import { envelopeDetail } from "../../../services/envelopes/serialize";
import { partnerRoute } from "../common";
import { REQUEST_PAYMENT_ERRORS } from "../../../services/payments/request-payment";

export const route = createRoute(
  partnerRoute(
    "envelopes:write",
    {
      method: "post",
      operationId: "createEnvelope",
      [ERROR_CODES_KEY]: REQUEST_PAYMENT_ERRORS,
      path: "/partner/envelopes",
      summary: "Create an envelope",
      description:
        "Creates a `pending` envelope and fires `envelope.created`. The customer is found by email in your organization or provisioned on the fly. Send an `Idempotency-Key` header to make retries safe.",
      request: { body: jsonBody(CreateEnvelopeBody) },
      responses: { 201: jsonContent(dataOf(EnvelopeSchema), "The new envelope") },
    },
    [400, 415, 422, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const envelope = await createEnvelope(c.var.ctx, {
    body: c.req.valid("json"),
  });
  return c.json({ data: envelopeDetail(envelope) }, 201);
};
