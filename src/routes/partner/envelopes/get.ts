import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { readEnvelopeDetail } from "../../../services/read-back/read-envelope-detail";
import { EnvelopeDetailSchema } from "../../../services/read-back/schema";
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
      description:
        "The envelope with the partner-safe metadata subset, and what was set on it read back: its `signers` (once sent, in signing order, each with its status, times, decline, E-SIGN consent and KBA state), `cc`, the `reminders` schedule in force with the next one due, and the Sign + Pay `payment`. Signing links are not here: ask `…/signing-links`.",
      request: { params: EnvelopeParams },
      responses: { 200: jsonContent(dataOf(EnvelopeDetailSchema), "The envelope and what was set on it") },
    },
    [404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  return c.json({ data: await readEnvelopeDetail(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id }) }, 200);
};
