import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { EnvelopeSchema, VoidEnvelopeBody } from "../../../services/envelopes/schema";
import { envelopeDetail } from "../../../services/envelopes/serialize";
import { voidEnvelope } from "../../../services/envelopes/void-envelope";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "./params";

export const route = createRoute(
  partnerRoute(
    "envelopes:write",
    {
      method: "post",
      operationId: "voidEnvelope",
      path: "/partner/envelopes/{envelope_id}/void",
      summary: "Void an envelope",
      description:
        "From `pending`, `uploaded`, `preparing`, `sent` or `viewed` to `voided`; fires `envelope.voided`. Any other status is 422 naming it, e.g. `Cannot void an envelope with status completed`.",
      request: { params: EnvelopeParams, body: jsonBody(VoidEnvelopeBody) },
      responses: { 200: jsonContent(dataOf(EnvelopeSchema), "The voided envelope") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const envelope = await voidEnvelope(c.var.ctx, {
    envelopeId: c.req.valid("param").envelope_id,
    reason: c.req.valid("json").reason,
  });
  return c.json({ data: envelopeDetail(envelope) }, 200);
};
