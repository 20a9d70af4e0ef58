import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { ERROR_CODES_KEY, errorResponses, mergeErrorCodes } from "../../lib/openapi";
import { INTEGRITY_ERRORS, openVaultDownload } from "../../services/vault/download";
import { VAULT_FILES, VAULT_URL_ERRORS } from "../../services/vault/signed-url";
import { clientThrottle } from "../../middleware/client-throttle";
import { publicRoute } from "../define";

export const route = createRoute(publicRoute({
  method: "get",
  operationId: "downloadVaultDocument",
  [ERROR_CODES_KEY]: mergeErrorCodes(VAULT_URL_ERRORS, INTEGRITY_ERRORS),
  path: "/storage/v/{vault_id}/{file}",
  summary: "Download a vaulted document (signed URL)",
  description:
    "The `signed_url` of the vault URL endpoints points here. No credential but the URL's own HMAC signature over the document and `exp`; a changed byte or an expired link is 403. The authoritative copy is re-hashed before it is sent and refused with 409 (`code: integrity_check_failed`) if it no longer matches the SHA-256 recorded at vaulting.",
  tags: ["Storage"],
  request: {
    params: z.object({
      vault_id: z.string().max(64).openapi({ param: { name: "vault_id", in: "path" }, example: "vlt_4d2k8m1q7c9v3b5n6p0r2t4w6y" }),
      file: z.enum(VAULT_FILES).openapi({ param: { name: "file", in: "path" } }),
    }),
    query: z.object({
      exp: z.string().max(20).openapi({ description: "Expiry, Unix seconds", example: "1795400000" }),
      c: z.string().max(64).optional().openapi({ description: "On the authoritative copy's URL: the controller it was issued to (signed); the download answers 403 `not_controller` once that organization no longer controls the record, 409 `control_closed` once control is closed" }),
      sig: z.string().max(128).openapi({ description: "Hex HMAC-SHA256 signature" }),
    }),
  },
  responses: {
    200: {
      description: "The file, as an attachment: a PDF, or the evidence bundle's ZIP",
      content: { "application/pdf": { schema: { type: "string", format: "binary" } }, "application/zip": { schema: { type: "string", format: "binary" } } },
    },
    ...errorResponses(400, 403, 404, 409, 503),
  },
  // each download re-hashes the vaulted file (up to 50 MB) for as long as the URL lives: flood-limited per address like the signer API
}, [clientThrottle]));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const { vault_id, file } = c.req.valid("param");
  const { exp, sig, c: controller } = c.req.valid("query");
  const download = await openVaultDownload(c.var.ctx, { vaultId: vault_id, file, exp, sig, c: controller });
  return c.body(download.body, 200, {
    "Content-Type": download.contentType,
    "Content-Length": String(download.size),
    "Content-Disposition": `attachment; filename="${download.filename}"`,
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
  });
};
