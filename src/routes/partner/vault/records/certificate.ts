import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, jsonContent } from "../../../../lib/openapi";
import { VaultParams } from "../../../../services/control/record-schema";
import { getRecordCertificate } from "../../../../services/control/vault-urls";
import { CertificateSchema } from "../../../../services/vault/schema";
import { partnerRoute } from "../../common";

export const route = createRoute(
  partnerRoute(
    ["vault:read", "compliance:read"],
    {
      method: "get",
      operationId: "getVaultRecordCertificate",
      path: "/partner/vault/{vault_id}/certificate",
      summary: "Get the compliance certificate of a vault record",
      description:
        "The current UCC §9-105 certificate (as GET /partner/envelopes/{envelope_id}/vault/certificate answers it), naming the controller, the pledgor and the transfer count; a new version is issued with every control step. To every party of the record; 404 to anyone else.",
      request: { params: VaultParams },
      responses: { 200: jsonContent(dataOf(CertificateSchema), "The certificate") },
    },
    [404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  return c.json({ data: await getRecordCertificate(c.var.ctx, { vaultId: c.req.valid("param").vault_id }) }, 200);
};
