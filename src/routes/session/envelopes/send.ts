import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../../lib/openapi";
import { sendEnvelope } from "../../../services/compose/send-envelope";
import { SendEnvelopeBody, SessionSentEnvelopeSchema } from "../../../services/signers/schema";
import { sentEnvelopeDetail } from "../../../services/signers/signing-links";
import { EnvelopeParams } from "../../partner/envelopes/params";
import { sessionRoute } from "../common";
import { SMS_ERRORS } from "../../../providers/sms";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "post",
      operationId: "consoleSendEnvelope",
      [ERROR_CODES_KEY]: SMS_ERRORS,
      path: "/envelopes/{envelope_id}/send",
      summary: "Send an envelope for signature (console)",
      description:
        "Any member of the organization may send, with the partner route's body and rules; `send_email: false` on a KBA envelope is 422. Returns the envelope and each signer's `signing_url`.",
      request: { params: EnvelopeParams, body: jsonBody(SendEnvelopeBody) },
      responses: { 200: jsonContent(dataOf(SessionSentEnvelopeSchema), "The sent envelope and its signing links") },
    },
    [400, 404, 409, 415, 422, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const sent = await sendEnvelope(c.var.ctx, {
    envelopeId: c.req.valid("param").envelope_id,
    body: c.req.valid("json"),
  });
  return c.json({ data: await sentEnvelopeDetail(c.var.ctx.env, sent, "signing_url") }, 200);
};
