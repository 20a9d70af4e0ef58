import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { setAutoVaultConsent } from "../../../services/vault/auto-vault";
import { AutoVaultConsentBody, AutoVaultConsentSchema } from "../../../services/vault/schema";
import { EnvelopeParams } from "../../partner/envelopes/params";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    ["admin", "custodian"],
    {
      method: "post",
      operationId: "setAutoVaultConsent",
      path: "/envelopes/{envelope_id}/auto-vault-consent",
      summary: "Consent to auto-vault an envelope (admin or custodian)",
      description:
        "With `auto_vault_enabled: true` and `acknowledge_authoritative_copy: true`, the envelope is vaulted by the system on your behalf as soon as it is completed (at once if it already is). `auto_vault_enabled: false` withdraws consent. Refused (422) once the envelope is vaulted, voided, declined or expired.",
      request: { params: EnvelopeParams, body: jsonBody(AutoVaultConsentBody) },
      responses: { 200: jsonContent(dataOf(AutoVaultConsentSchema), "The consent, and the envelope's status after it") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  const state = await setAutoVaultConsent(c.var.ctx, {
    envelopeId: c.req.valid("param").envelope_id,
    enabled: body.auto_vault_enabled,
    acknowledged: body.acknowledge_authoritative_copy,
  });
  return c.json({ data: state }, 200);
};
