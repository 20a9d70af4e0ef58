import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent, partnerRoute } from "../../../lib/openapi";
import { requireScope } from "../../../middleware/partner-auth";
import { VaultUrlQuery, VaultUrlSchema } from "../../../services/vault/schema";
import { createVaultUrl, type VaultFile } from "../../../services/vault/signed-url";
import { EnvelopeParams } from "../envelopes/params";

const vaultUrlRoute = (file: VaultFile, path: string, summary: string, description: string) =>
  createRoute(
    partnerRoute(
      "vault:read",
      {
        method: "get",
        path,
        summary,
        description: `${description} The URL is on the storage host, signed (HMAC) and valid for \`expires\` seconds (60 to 86400, default 300). 404 until the envelope is vaulted.`,
        middleware: [requireScope("vault:read")] as const,
        request: { params: EnvelopeParams, query: VaultUrlQuery },
        responses: { 200: jsonContent(dataOf(VaultUrlSchema), "A signed download URL") },
      },
      [400, 404, 503],
    ),
  );

const handlerFor =
  (file: VaultFile): AppRouteHandler<ReturnType<typeof vaultUrlRoute>> =>
  async (c) => {
    const url = await createVaultUrl(c.env, {
      orgId: c.var.apiKey.orgId,
      envelopeId: c.req.valid("param").envelope_id,
      file,
      expiresIn: c.req.valid("query").expires,
    });
    return c.json({ data: url }, 200);
  };

export const authoritativeRoute = vaultUrlRoute(
  "authoritative",
  "/partner/envelopes/{envelope_id}/vault/signed-url",
  "Download URL of the authoritative copy",
  "The download re-computes the SHA-256 and refuses (409) a document that no longer matches the hash recorded at vaulting, recording a tamper event.",
);
export const authoritativeHandler = handlerFor("authoritative");

export const copyRoute = vaultUrlRoute(
  "copy",
  "/partner/envelopes/{envelope_id}/vault/copy/signed-url",
  "Download URL of the non-authoritative copy",
  "The copy carries NON-AUTHORITATIVE COPY on every page and in its metadata.",
);
export const copyHandler = handlerFor("copy");
