import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { readMultipartForm } from "../../lib/multipart";
import { dataOf, ERROR_CODES_KEY, errorResponses, jsonContent, mergeErrorCodes } from "../../lib/openapi";
import { MAX_ATTACHMENT_BYTES } from "../../services/attachments/sniff";
import { UPLOAD_ATTACHMENT_ERRORS, uploadAttachment } from "../../services/signing/upload-attachment";
import { signerByCredential } from "../../services/signers/resolve-credential";
import { SIGNING_SECURITY_NOTE, SIGNING_TAGS, SlugParams, signerRoute } from "./common";
import { OTP_GATE_ERRORS } from "../../services/otp/gate";
import { CONSENT_GATE_ERRORS } from "../../services/signers/consent-gate";
import { KBA_GATE_ERRORS } from "../../services/kba/gate";

const Params = SlugParams.extend({
  field_name: z.string().min(1).max(100).openapi({ param: { name: "field_name", in: "path" }, description: "The attachment field's name", example: "drivers_license" }),
});

export const AttachmentSchema = z
  .object({
    field: z.string(),
    kind: z.literal("attachment"),
    filename: z.string().openapi({ description: "The name the signer's device gave, made safe" }),
    content_type: z.enum(["application/pdf", "image/jpeg", "image/png"]).openapi({ description: "What the bytes are (never the declared type)" }),
    size: z.int(),
    sha256: z.string().openapi({ description: "SHA-256 of the file, hex: on the audit entry and the certificate" }),
    uploaded_at: z.string(),
  })
  .openapi("SigningAttachment", {
    example: { field: "drivers_license", kind: "attachment", filename: "license.jpg", content_type: "image/jpeg", size: 482113, sha256: "9f2c…", uploaded_at: "2026-11-23T09:35:00.000Z" },
  });

export const route = createRoute(signerRoute({
  method: "put",
  operationId: "uploadSigningAttachment",
  [ERROR_CODES_KEY]: mergeErrorCodes(UPLOAD_ATTACHMENT_ERRORS, CONSENT_GATE_ERRORS, KBA_GATE_ERRORS, OTP_GATE_ERRORS),
  path: "/signing/{slug}/attachments/{field_name}",
  summary: "Upload the file of an attachment field (multipart)",
  description:
    `The signer's file for one of their \`attachment\` fields: multipart, the file in \`file\`, at most ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB (413). Its type is read from its bytes and must be one the field accepts (415 \`attachment_type_not_accepted\`); a PDF passes the upload's decode budget (413 for a decompression bomb), an image needs a readable header and sane dimensions (422). ` +
    "Stored beside the envelope, its SHA-256 on a `signer.attachment_uploaded` audit entry; uploading again replaces it, until the signer submits (a required attachment field without a file: 422 at submit). " +
    `The same gates as submit: KBA, the SMS passcode, consent (403), the signer's turn and not signed yet (409). Not this signer's attachment field: 404. ${SIGNING_SECURITY_NOTE}`,
  tags: SIGNING_TAGS,
  request: {
    params: Params,
    body: {
      required: true,
      content: {
        "multipart/form-data": {
          schema: { type: "object", required: ["file"], properties: { file: { type: "string", format: "binary", description: "A PDF, JPEG or PNG, at most 10 MB, checked by its bytes" } } },
        },
      },
    },
  },
  responses: { 200: jsonContent(dataOf(AttachmentSchema), "The file as stored"), ...errorResponses(400, 403, 404, 409, 410, 413, 415, 422, 429) },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const { slug, field_name } = c.req.valid("param");
  const { signerId } = await signerByCredential(c.var.ctx, slug, "upload an attachment");
  // the cap is the file's: the form around it is read up to the multipart overhead more
  const form = await readMultipartForm(c.req.raw, { fileField: "file", maxFileBytes: MAX_ATTACHMENT_BYTES });
  const data = await uploadAttachment(c.var.ctx, { signerId, fieldName: field_name, file: form.file });
  return c.json({ data }, 200);
};
