import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonContent } from "../../../../lib/openapi";
import { ATTESTATION_ERRORS, getControlAttestation } from "../../../../services/control/attestation";
import { AttestationSchema, VaultParams } from "../../../../services/control/record-schema";
import { partnerRoute } from "../../common";

export const route = createRoute(
  partnerRoute(
    "vault:read",
    {
      method: "get",
      operationId: "getVaultControlAttestation",
      [ERROR_CODES_KEY]: ATTESTATION_ERRORS,
      path: "/partner/vault/{vault_id}/attestation",
      summary: "Signed attestation of control",
      description:
        "A compact JWS signed by the service's seal key (RS256 for an RSA key, ES256/ES384 for ECDSA), header `x5c` = the seal certificate chain (base64 DER), payload `{ vault_id, envelope_id, document_hash, status, controller, pledgor, history_length, chain_head, iat }` as of `iat`. Anyone holding the seal certificate verifies it offline (jose: `compactVerify(jws, await importX509(pem, alg))`). To every party of the record; 404 to anyone else; 409 `audit_chain_broken` when the envelope's audit chain does not verify; 503 when the seal is not configured.",
      request: { params: VaultParams },
      responses: { 200: jsonContent(dataOf(AttestationSchema), "The attestation") },
    },
    [404, 409, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  return c.json({ data: await getControlAttestation(c.var.ctx, { vaultId: c.req.valid("param").vault_id }) }, 200);
};
