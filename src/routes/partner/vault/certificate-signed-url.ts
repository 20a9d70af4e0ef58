import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { VaultUrlQuery, VaultUrlSchema } from "../../../services/vault/schema";
import { createVaultUrl } from "../../../services/vault/signed-url";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "../envelopes/params";

export const route = createRoute(
  partnerRoute(
    "compliance:read",
    {
      method: "get",
      operationId: "getCertificatePdfUrl",
      path: "/partner/envelopes/{envelope_id}/vault/certificate/signed-url",
      summary: "Download URL of the compliance certificate PDF",
      description:
        "The current compliance certificate (the JSON of GET …/vault/certificate) as rendered to PDF at issue. The URL is on the storage host, signed (HMAC) and valid for `expires` seconds (60 to 86400, default 300). 404 until the envelope is vaulted.",
      request: { params: EnvelopeParams, query: VaultUrlQuery },
      responses: { 200: jsonContent(dataOf(VaultUrlSchema), "A signed download URL") },
    },
    [400, 404, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const url = await createVaultUrl(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id, file: "certificate", expiresIn: c.req.valid("query").expires });
  return c.json({ data: url }, 200);
};
