import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../../lib/openapi";
import { EnvelopeSchema } from "../../../services/envelopes/schema";
import { envelopeDetail } from "../../../services/envelopes/serialize";
import { VaultInSignedBody } from "../../../services/vault/schema";
import { vaultInSigned } from "../../../services/vault/vault-in-signed";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "../envelopes/params";
import { PAYMENT_PENDING_ERRORS } from "../../../lib/errors";

export const route = createRoute(
  partnerRoute(
    "vault:write",
    {
      method: "post",
      operationId: "vaultSignedEnvelope",
      [ERROR_CODES_KEY]: PAYMENT_PENDING_ERRORS,
      path: "/partner/envelopes/{envelope_id}/vault-in-signed",
      summary: "Vault a signed envelope (e-sign)",
      description:
        "From `completed` to `vaulted`: stores the signed PDF as the authoritative copy (byte-identical, SHA-256 recorded) and a copy marked NON-AUTHORITATIVE COPY on every page, issues the compliance certificate and fires `vault.stored`. Already vaulted: 200 with the envelope. Paper envelopes: 409 (use vault-in-upload). Any other status: 422 naming it. An unpaid requested payment: 409. Send `{}` or name the `secured_party`.",
      request: { params: EnvelopeParams, body: jsonBody(VaultInSignedBody) },
      responses: { 200: jsonContent(dataOf(EnvelopeSchema), "The vaulted envelope") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const envelope = await vaultInSigned(c.var.ctx, {
    envelopeId: c.req.valid("param").envelope_id,
    securedParty: c.req.valid("json").secured_party,
  });
  return c.json({ data: envelopeDetail(envelope) }, 200);
};
