import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent, partnerRoute } from "../../../lib/openapi";
import { requireContentType } from "../../../middleware/content-type";
import { requireScope } from "../../../middleware/partner-auth";
import { serviceContext } from "../../../services/context";
import { EnvelopeSchema } from "../../../services/envelopes/schema";
import { envelopeDetail } from "../../../services/envelopes/serialize";
import { VaultInSignedBody } from "../../../services/vault/schema";
import { vaultInSigned } from "../../../services/vault/vault-in-signed";
import { EnvelopeParams } from "../envelopes/params";

export const route = createRoute(
  partnerRoute(
    "vault:write",
    {
      method: "post",
      path: "/partner/envelopes/{envelope_id}/vault-in-signed",
      summary: "Vault a signed envelope (e-sign)",
      description:
        "From `completed` to `vaulted`: stores the signed PDF as the authoritative copy (byte-identical, SHA-256 recorded) and a copy marked NON-AUTHORITATIVE COPY on every page, issues the compliance certificate and fires `vault.stored`. Already vaulted: 200 with the envelope. Paper envelopes: 409 (use vault-in-upload). Any other status: 422 naming it. An unpaid requested payment: 409. Send `{}` or name the `secured_party`.",
      middleware: [requireContentType("json"), requireScope("vault:write")] as const,
      request: { params: EnvelopeParams, body: jsonBody(VaultInSignedBody) },
      responses: { 200: jsonContent(dataOf(EnvelopeSchema), "The vaulted envelope") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const envelope = await vaultInSigned(serviceContext(c.env, (p) => c.executionCtx.waitUntil(p)), {
    orgId: c.var.apiKey.orgId,
    envelopeId: c.req.valid("param").envelope_id,
    actor: c.var.actor,
    securedParty: c.req.valid("json").secured_party,
  });
  return c.json({ data: envelopeDetail(envelope) }, 200);
};
