import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent, partnerRoute } from "../../../lib/openapi";
import { requireScope } from "../../../middleware/partner-auth";
import { getEnvelope } from "../../../services/envelopes/repository";
import { EnvelopeSchema } from "../../../services/envelopes/schema";
import { envelopeDetail } from "../../../services/envelopes/serialize";
import { EnvelopeParams } from "./params";

export const route = createRoute(
  partnerRoute(
    "envelopes:read",
    {
      method: "get",
      path: "/partner/envelopes/{envelope_id}",
      summary: "Get an envelope",
      middleware: [requireScope("envelopes:read")] as const,
      request: { params: EnvelopeParams },
      responses: { 200: jsonContent(dataOf(EnvelopeSchema), "The envelope, with the partner-safe metadata subset") },
    },
    [404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const envelope = await getEnvelope(c.env.DB, c.var.apiKey.orgId, c.req.valid("param").envelope_id);
  return c.json({ data: envelopeDetail(envelope) }, 200);
};
