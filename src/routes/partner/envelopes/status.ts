import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { speculativeRead } from "../../../middleware/speculative-read";
import { readEnvelopeStatus, readEnvelopeStatusUnscoped } from "../../../services/envelopes/read-envelope-status";
import { EnvelopeStatusSchema } from "../../../services/envelopes/schema";
import { envelopeStatus } from "../../../services/envelopes/serialize";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "./params";

// The poll's D1 read runs beside the key's limiter round trip; the handler checks it read the id it serves
const speculativeStatus = speculativeRead((c) => readEnvelopeStatusUnscoped(c.var.ctx.db, c.req.param("envelope_id") ?? ""));

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
    { speculative: speculativeStatus },
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const envelope = await readEnvelopeStatus(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id, speculated: speculativeStatus.resultOf(c) });
  return c.json({ data: envelopeStatus(envelope) }, 200);
};
