import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { ERROR_CODES_KEY, errorResponses, mergeErrorCodes } from "../../lib/openapi";
import { openSignerCopy } from "../../services/copies/open-copy";
import { clientThrottle } from "../../middleware/client-throttle";
import { publicRoute } from "../define";
import { INTEGRITY_ERRORS } from "../../services/vault/download";
import { RECORD_DESTROYED_ERRORS } from "../../services/vault/signed-url";
import { COPY_LINK_ERRORS } from "../../services/copies/copy-url";

export const route = createRoute(publicRoute({
  method: "get",
  operationId: "downloadSignerCopy",
  [ERROR_CODES_KEY]: mergeErrorCodes(COPY_LINK_ERRORS, INTEGRITY_ERRORS, RECORD_DESTROYED_ERRORS),
  path: "/storage/copies/{envelope_id}",
  summary: "Download the signer's copy of a completed envelope (signed URL)",
  description:
    "The link of the `completed_copy` email and of `copy.url` on GET /signing/{slug}: the sealed signed PDF, marked as a non-authoritative copy (an incremental update: the seal stays valid for the revision it signed), for 30 days after completion, whether or not the envelope has been vaulted. No credential but the URL's own HMAC signature over the envelope, the recipient `r` and `exp`: a changed byte is 403 `invalid_copy_link`, an expired link 410 `copy_link_expired`; the copy of a vault record destroyed after its retention period, 409 `record_destroyed`.",
  tags: ["Storage"],
  request: {
    params: z.object({
      envelope_id: z.string().max(64).openapi({ param: { name: "envelope_id", in: "path" }, example: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y" }),
    }),
    query: z.object({
      r: z.string().max(64).openapi({ description: "The recipient: a signer (`sgn_…`) or a cc recipient (`ccr_…`)", example: "sgn_4d2k8m1q7c9v3b5n6p0r2t4w6y" }),
      exp: z.string().max(20).openapi({ description: "Expiry, Unix seconds: 30 days after completion", example: "1795400000" }),
      sig: z.string().max(128).openapi({ description: "Hex HMAC-SHA256 signature" }),
    }),
  },
  responses: {
    200: { description: "The marked copy, as an attachment", content: { "application/pdf": { schema: { type: "string", format: "binary" } } } },
    ...errorResponses(400, 403, 404, 409, 410, 503),
  },
  // the first download of a copy not yet vaulted marks the PDF: flood-limited per address like the vault downloads
}, [clientThrottle]));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const { envelope_id } = c.req.valid("param");
  const download = await openSignerCopy(c.var.ctx, { envelopeId: envelope_id, ...c.req.valid("query") });
  return c.body(download.body, 200, {
    "Content-Type": "application/pdf",
    "Content-Length": String(download.size),
    "Content-Disposition": `attachment; filename="${download.filename}"`,
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
  });
};
