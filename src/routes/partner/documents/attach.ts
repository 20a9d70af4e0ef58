import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { readMultipartForm } from "../../../lib/multipart";
import { dataOf, jsonContent, partnerRoute } from "../../../lib/openapi";
import { MAX_PDF_BYTES } from "../../../lib/pdf";
import { requireContentType } from "../../../middleware/content-type";
import { requireScope } from "../../../middleware/partner-auth";
import { serviceContext } from "../../../services/context";
import { attachEnvelopeDocument } from "../../../services/documents/attach-envelope-document";
import { EnvelopeDocumentResponse } from "../../../services/documents/schema";
import { EnvelopeParams } from "../envelopes/params";
import { pdfUploadBody, TooLarge } from "../templates/common";

export const route = createRoute(
  partnerRoute(
    "envelopes:write",
    {
      method: "put",
      path: "/partner/envelopes/{envelope_id}/document",
      summary: "Attach the PDF to sign (multipart)",
      description:
        "Attaches a PDF (multipart `file`, at most 50 MB) to a `pending` envelope, which moves to `uploaded`. Embedded `{{name;attr=value}}` tags become the envelope's fields and are stripped from the stored PDF. 409 for paper envelopes (use vault-in-upload) and envelopes created from a template; 422 from any status but `pending`.",
      middleware: [requireContentType("multipart"), requireScope("envelopes:write")] as const,
      request: {
        params: EnvelopeParams,
        body: pdfUploadBody(),
      },
      responses: {
        200: jsonContent(dataOf(EnvelopeDocumentResponse), "The envelope, now `uploaded`, with its document and fields"),
        413: TooLarge,
      },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const form = await readMultipartForm(c.req.raw, { fileField: "file", maxFileBytes: MAX_PDF_BYTES });
  const data = await attachEnvelopeDocument(serviceContext(c.env, (p) => c.executionCtx.waitUntil(p)), {
    orgId: c.var.apiKey.orgId,
    actor: c.var.actor,
    envelopeId: c.req.valid("param").envelope_id,
    form,
  });
  return c.json({ data }, 200);
};
