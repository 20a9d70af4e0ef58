import { z } from "@hono/zod-openapi";

export const SealCertificateSchema = z
  .object({
    sha256: z.string().openapi({ description: "SHA-256 of the certificate's DER, lower-case hex: what `verify.mjs --seal-sha256` pins", example: "9f2c…" }),
    subject: z.string().openapi({ example: "CN=esign-vault seal, O=Example Corp" }),
    issuer: z.string(),
    not_before: z.string().openapi({ description: "ISO 8601" }),
    not_after: z.string().openapi({ description: "ISO 8601" }),
    certificate_pem: z.string(),
    current: z.boolean().openapi({ description: "true: the certificate seals today (SEAL_CERTIFICATE); false: a retired one (SEAL_RETIRED_CERTIFICATES), still the key of documents and bundles sealed before its renewal" }),
  })
  .openapi("SealCertificate");

export type SealCertificate = z.infer<typeof SealCertificateSchema>;
