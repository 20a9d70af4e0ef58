import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { EnvelopeSchema, VoidEnvelopeBody } from "../../../services/envelopes/schema";
import { envelopeDetail } from "../../../services/envelopes/serialize";
import { voidEnvelope } from "../../../services/envelopes/void-envelope";
import { EnvelopeParams } from "../../partner/envelopes/params";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "post",
      operationId: "consoleVoidEnvelope",
      path: "/envelopes/{envelope_id}/void",
      summary: "Void an envelope (console)",
      description: "Any member of the organization may void an open envelope; same rules as the partner route.",
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
