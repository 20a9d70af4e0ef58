import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { errorResponses } from "../../lib/openapi";
import { clientThrottle } from "../../middleware/client-throttle";
import { openAttachmentDownload } from "../../services/attachments/download-url";
import { publicRoute } from "../define";

export const route = createRoute(publicRoute({
  method: "get",
  operationId: "downloadEnvelopeAttachment",
  path: "/storage/attachments/{envelope_id}/{field_name}",
  summary: "Download a file a signer attached (signed URL)",
  description:
    "The `signed_url` of GET /partner/envelopes/{envelope_id}/attachments/{field_name}/signed-url points here. No credential but the URL's own HMAC signature over the envelope, the field, the file's SHA-256 and `exp`: a changed byte, a replaced file or an expired link is 403. Always served as a download (`Content-Disposition: attachment`), never rendered on this origin.",
  tags: ["Storage"],
  request: {
    params: z.object({
      envelope_id: z.string().max(64).openapi({ param: { name: "envelope_id", in: "path" }, example: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y" }),
      field_name: z.string().min(1).max(100).openapi({ param: { name: "field_name", in: "path" }, example: "drivers_license" }),
    }),
    query: z.object({
      exp: z.string().max(20).openapi({ description: "Expiry, Unix seconds", example: "1795400000" }),
      sig: z.string().max(128).openapi({ description: "Hex HMAC-SHA256 signature" }),
    }),
  },
  responses: {
    200: {
      description: "The file, as an attachment",
      content: {
        "application/pdf": { schema: { type: "string", format: "binary" } },
        "image/jpeg": { schema: { type: "string", format: "binary" } },
        "image/png": { schema: { type: "string", format: "binary" } },
      },
    },
    ...errorResponses(400, 403, 404, 503),
  },
}, [clientThrottle]));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const { envelope_id, field_name } = c.req.valid("param");
  const download = await openAttachmentDownload(c.var.ctx, { envelopeId: envelope_id, fieldName: field_name, ...c.req.valid("query") });
  const filename = download.attachment.filename.replace(/[^\x20-\x7e]/g, "_");
  return c.body(download.body, 200, {
    "Content-Type": download.attachment.content_type,
    "Content-Length": String(download.size),
    "Content-Disposition": `attachment; filename="${filename}"`,
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
  });
};
