import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { readEnvelope } from "../../../services/envelopes/read-envelope";
import { EnvelopeSchema } from "../../../services/envelopes/schema";
import { envelopeDetail } from "../../../services/envelopes/serialize";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "./params";

export const route = createRoute(
  partnerRoute(
    "envelopes:read",
    {
      method: "get",
      operationId: "getEnvelope",
      path: "/partner/envelopes/{envelope_id}",
      summary: "Get an envelope",
      request: { params: EnvelopeParams },
      responses: { 200: jsonContent(dataOf(EnvelopeSchema), "The envelope, with the partner-safe metadata subset") },
    },
    [404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const envelope = await readEnvelope(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id });
  return c.json({ data: envelopeDetail(envelope) }, 200);
};
