import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { requireContentType } from "../../../middleware/content-type";
import { requireMembership } from "../../../middleware/session-auth";
import { serviceContext } from "../../../services/context";
import { EnvelopeSchema, VoidEnvelopeBody } from "../../../services/envelopes/schema";
import { envelopeDetail } from "../../../services/envelopes/serialize";
import { voidEnvelope } from "../../../services/envelopes/void-envelope";
import { EnvelopeParams } from "../../partner/envelopes/params";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    {
      method: "post",
      path: "/envelopes/{envelope_id}/void",
      summary: "Void an envelope (console)",
      description: "Any member of the organization may void an open envelope; same rules as the partner route.",
      middleware: [requireContentType("json"), requireMembership()] as const,
      request: { params: EnvelopeParams, body: jsonBody(VoidEnvelopeBody) },
      responses: { 200: jsonContent(dataOf(EnvelopeSchema), "The voided envelope") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const envelope = await voidEnvelope(serviceContext(c.env, (p) => c.executionCtx.waitUntil(p)), {
    orgId: c.var.membership.orgId,
    envelopeId: c.req.valid("param").envelope_id,
    reason: c.req.valid("json").reason,
    actor: c.var.actor,
  });
  return c.json({ data: envelopeDetail(envelope) }, 200);
};
