import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { getCertificate } from "../../../services/vault/get-certificate";
import { CertificateSchema } from "../../../services/vault/schema";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "../envelopes/params";

export const route = createRoute(
  partnerRoute(
    "compliance:read",
    {
      method: "get",
      operationId: "getVaultCertificate",
      path: "/partner/envelopes/{envelope_id}/vault/certificate",
      summary: "Get the compliance certificate",
      description:
        "The current UCC §9-105 certificate, issued at vault-in and re-issued whenever a check's outcome changes (e.g. a failed integrity check). 404 until it has been generated.",
      request: { params: EnvelopeParams },
      responses: { 200: jsonContent(dataOf(CertificateSchema), "The certificate") },
    },
    [404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const certificate = await getCertificate(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id });
  return c.json({ data: certificate }, 200);
};
