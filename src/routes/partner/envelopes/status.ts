import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { readEnvelopeStatus } from "../../../services/envelopes/read-envelope-status";
import { EnvelopeStatusSchema } from "../../../services/envelopes/schema";
import { envelopeStatus } from "../../../services/envelopes/serialize";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "./params";

export const route = createRoute(
  partnerRoute(
    "envelopes:read",
    {
      method: "get",
      operationId: "getEnvelopeStatus",
      path: "/partner/envelopes/{envelope_id}/status",
      summary: "Poll an envelope's status",
      request: { params: EnvelopeParams },
      responses: { 200: jsonContent(dataOf(EnvelopeStatusSchema), "Status, vault and compliance flags") },
    },
    [404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const envelope = await readEnvelopeStatus(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id, speculated: c.var.speculativeRead?.result });
  return c.json({ data: envelopeStatus(envelope) }, 200);
};
