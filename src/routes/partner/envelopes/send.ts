import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../../lib/openapi";
import { sendEnvelope } from "../../../services/compose/send-envelope";
import { SendEnvelopeBody, SentEnvelopeSchema } from "../../../services/signers/schema";
import { sentEnvelopeDetail } from "../../../services/signers/signing-links";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "./params";
import { SMS_ERRORS } from "../../../providers/sms";

export const route = createRoute(
  partnerRoute(
    "esign:write",
    {
      method: "post",
      operationId: "sendEnvelope",
      [ERROR_CODES_KEY]: SMS_ERRORS,
      path: "/partner/envelopes/{envelope_id}/send",
      summary: "Send an envelope for signature",
      description:
        "Attaches one signer per role of the envelope's fields (without `signers`, the customer signs the single role), moves `pending`/`uploaded` through `preparing` to `sent`, sets `expires_at`, fires `envelope.sent` and emails the first routing order unless `send_email` is false. Returns the envelope and each signer's `embed_url`. No document, no fields, signers not matching the roles, or `send_email: false` on a KBA envelope: 422. Paper envelopes: 409.",
      request: { params: EnvelopeParams, body: jsonBody(SendEnvelopeBody) },
      responses: { 200: jsonContent(dataOf(SentEnvelopeSchema), "The sent envelope and its signing links") },
    },
    [400, 404, 409, 415, 422, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const sent = await sendEnvelope(c.var.ctx, {
    envelopeId: c.req.valid("param").envelope_id,
    body: c.req.valid("json"),
  });
  return c.json({ data: await sentEnvelopeDetail(c.var.ctx.env, sent, "embed_url") }, 200);
};
