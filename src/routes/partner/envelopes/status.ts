import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent, partnerRoute } from "../../../lib/openapi";
import { requireScope } from "../../../middleware/partner-auth";
import { getEnvelope } from "../../../services/envelopes/repository";
import { EnvelopeStatusSchema } from "../../../services/envelopes/schema";
import { envelopeStatus } from "../../../services/envelopes/serialize";
import { EnvelopeParams } from "./params";

export const route = createRoute(
  partnerRoute(
    "envelopes:read",
    {
      method: "get",
      path: "/partner/envelopes/{envelope_id}/status",
      summary: "Poll an envelope's status",
      middleware: [requireScope("envelopes:read")] as const,
      request: { params: EnvelopeParams },
      responses: { 200: jsonContent(dataOf(EnvelopeStatusSchema), "Status, vault and compliance flags") },
    },
    [404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const envelope = await getEnvelope(c.env.DB, c.var.apiKey.orgId, c.req.valid("param").envelope_id);
  return c.json({ data: envelopeStatus(envelope) }, 200);
};
