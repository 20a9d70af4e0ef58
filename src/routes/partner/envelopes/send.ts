import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent, partnerRoute } from "../../../lib/openapi";
import { requireContentType } from "../../../middleware/content-type";
import { requireScope } from "../../../middleware/partner-auth";
import { serviceContext } from "../../../services/context";
import { sendEnvelope } from "../../../services/envelopes/send-envelope";
import { SendEnvelopeBody, SentEnvelopeSchema } from "../../../services/signers/schema";
import { sentEnvelopeDetail } from "../../../services/signers/signing-links";
import { EnvelopeParams } from "./params";

export const route = createRoute(
  partnerRoute(
    "esign:write",
    {
      method: "post",
      path: "/partner/envelopes/{envelope_id}/send",
      summary: "Send an envelope for signature",
      description:
        "Attaches one signer per role of the envelope's fields (without `signers`, the customer signs the single role), moves `pending`/`uploaded` through `preparing` to `sent`, sets `expires_at`, fires `envelope.sent` and emails the first routing order unless `send_email` is false. Returns the envelope and each signer's `embed_url`. No document, no fields, signers not matching the roles, or `send_email: false` on a KBA envelope: 422. Paper envelopes: 409.",
      middleware: [requireContentType("json"), requireScope("esign:write")] as const,
      request: { params: EnvelopeParams, body: jsonBody(SendEnvelopeBody) },
      responses: { 200: jsonContent(dataOf(SentEnvelopeSchema), "The sent envelope and its signing links") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const sent = await sendEnvelope(serviceContext(c.env, (p) => c.executionCtx.waitUntil(p)), {
    orgId: c.var.apiKey.orgId,
    actor: c.var.actor,
    envelopeId: c.req.valid("param").envelope_id,
    body: c.req.valid("json"),
  });
  return c.json({ data: sentEnvelopeDetail(c.env, sent, "embed_url") }, 200);
};
