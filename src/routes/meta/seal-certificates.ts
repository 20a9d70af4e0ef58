import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { errorResponses, jsonContent } from "../../lib/openapi";
import { SealCertificateSchema } from "../../services/evidence/schema";
import { listSealCertificates } from "../../services/evidence/seal-certificates";
import { publicRoute } from "../define";

export const route = createRoute(publicRoute({
  method: "get",
  operationId: "listSealCertificates",
  path: "/seal-certificates",
  summary: "The service's seal certificates and their SHA-256 fingerprints",
  description:
    "Public, no credential: the certificate the service seals documents and signs evidence-bundle manifests with (`current: true`), then the retired ones it sealed with before a renewal. An auditor pins a fingerprint with `node verify.mjs --seal-sha256 <sha256>` (docs/evidence.md); the fingerprint is the SHA-256 of the certificate's DER, as `openssl x509 -noout -fingerprint -sha256` prints it (without colons, lower case). An empty list when no seal is configured; 503 naming the variable when a configured certificate is unreadable. Cacheable for 5 minutes.",
  tags: ["Meta"],
  responses: {
    200: jsonContent(z.object({ data: z.array(SealCertificateSchema) }), "The current seal certificate first, then the retired ones"),
    ...errorResponses(503),
  },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await listSealCertificates(c.var.ctx);
  c.header("Cache-Control", "public, max-age=300");
  return c.json({ data }, 200);
};
