import { createRoute, z } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonContent } from "../../../lib/openapi";
import { ATTACHMENT_URL_ERRORS, createAttachmentUrl } from "../../../services/attachments/download-url";
import { VaultUrlQuery } from "../../../services/vault/schema";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "./params";

const Params = EnvelopeParams.extend({
  field_name: z.string().min(1).max(100).openapi({ param: { name: "field_name", in: "path" }, description: "The attachment field's name", example: "drivers_license" }),
});

const AttachmentUrlSchema = z
  .object({
    signed_url: z.string().openapi({ description: "On the storage host; valid until `expires_at`, and only while the file is the one uploaded when it was issued" }),
    filename: z.string(),
    content_type: z.enum(["application/pdf", "image/jpeg", "image/png"]),
    size: z.int(),
    sha256: z.string().openapi({ description: "SHA-256 of the file, hex (as the audit entry and the certificate state it)" }),
    expires_in: z.int(),
    expires_at: z.string(),
  })
  .openapi("AttachmentUrl", {
    example: {
      signed_url: "https://storage.example.com/attachments/env_9x2k4m7q1c8v5b3n6p0r2t4w6y/drivers_license?exp=1795400000&sig=…",
      filename: "license.jpg",
      content_type: "image/jpeg",
      size: 482113,
      sha256: "9f2c…",
      expires_in: 300,
      expires_at: "2026-11-23T09:40:00.000Z",
    },
  });

export const route = createRoute(
  partnerRoute(
    "envelopes:read",
    {
      method: "get",
      operationId: "getEnvelopeAttachmentUrl",
      [ERROR_CODES_KEY]: ATTACHMENT_URL_ERRORS,
      path: "/partner/envelopes/{envelope_id}/attachments/{field_name}/signed-url",
      summary: "Download URL of a file a signer attached",
      description:
        "The file a signer uploaded to an `attachment` field, as a signed URL on the storage host (HMAC, valid for `expires` seconds: 60 to 86400, default 300), with its name, type, size and SHA-256. No such field: 404 `attachment_field_not_found`; nothing uploaded yet: 404 `attachment_not_uploaded`.",
      request: { params: Params, query: VaultUrlQuery },
      responses: { 200: jsonContent(dataOf(AttachmentUrlSchema), "A signed download URL") },
    },
    [400, 404, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const { envelope_id, field_name } = c.req.valid("param");
  const data = await createAttachmentUrl(c.var.ctx, { envelopeId: envelope_id, fieldName: field_name, expiresIn: c.req.valid("query").expires });
  return c.json({ data }, 200);
};
