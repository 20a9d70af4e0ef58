import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { readEnvelopeDetail } from "../../../services/read-back/read-envelope-detail";
import { EnvelopeDetailSchema } from "../../../services/read-back/schema";
import { EnvelopeParams } from "../../partner/envelopes/params";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "get",
      operationId: "consoleGetEnvelope",
      path: "/envelopes/{envelope_id}",
      summary: "Get an envelope (console)",
      description: "The partner route's answer: the envelope, its signers, cc, reminders and payment read back.",
      request: { params: EnvelopeParams },
      responses: { 200: jsonContent(dataOf(EnvelopeDetailSchema), "The envelope and what was set on it") },
    },
    [400, 404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  return c.json({ data: await readEnvelopeDetail(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id }) }, 200);
};
