import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent, partnerRoute } from "../../../lib/openapi";
import { requireContentType } from "../../../middleware/content-type";
import { requireScope } from "../../../middleware/partner-auth";
import { serviceContext } from "../../../services/context";
import { EnvelopeSchema, VoidEnvelopeBody } from "../../../services/envelopes/schema";
import { envelopeDetail } from "../../../services/envelopes/serialize";
import { voidEnvelope } from "../../../services/envelopes/void-envelope";
import { EnvelopeParams } from "./params";

export const route = createRoute(
  partnerRoute(
    "envelopes:write",
    {
      method: "post",
      path: "/partner/envelopes/{envelope_id}/void",
      summary: "Void an envelope",
      description:
        "From `pending`, `uploaded`, `preparing`, `sent` or `viewed` to `voided`; fires `envelope.voided`. Any other status is 422 naming it, e.g. `Cannot void an envelope with status completed`.",
      middleware: [requireContentType("json"), requireScope("envelopes:write")] as const,
      request: { params: EnvelopeParams, body: jsonBody(VoidEnvelopeBody) },
      responses: { 200: jsonContent(dataOf(EnvelopeSchema), "The voided envelope") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const envelope = await voidEnvelope(serviceContext(c.env, (p) => c.executionCtx.waitUntil(p)), {
    orgId: c.var.apiKey.orgId,
    envelopeId: c.req.valid("param").envelope_id,
    reason: c.req.valid("json").reason,
    actor: c.var.actor,
  });
  return c.json({ data: envelopeDetail(envelope) }, 200);
};
