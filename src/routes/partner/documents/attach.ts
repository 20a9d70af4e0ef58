import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { MAX_PDF_BYTES, readMultipartForm } from "../../../lib/multipart";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { attachEnvelopeDocument } from "../../../services/documents/attach-envelope-document";
import { EnvelopeDocumentResponse } from "../../../services/documents/schema";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "../envelopes/params";
import { pdfUploadBody, TooLarge } from "../templates/common";

export const route = createRoute(
  partnerRoute(
    "envelopes:write",
    {
      method: "put",
      operationId: "attachEnvelopeDocument",
      path: "/partner/envelopes/{envelope_id}/document",
      summary: "Attach the PDF to sign (multipart)",
      description:
        "Attaches a PDF (multipart `file`, at most 50 MB) to a `pending` envelope, which moves to `uploaded`. Embedded `{{name;attr=value}}` tags become the envelope's fields and are stripped from the stored PDF. 409 for paper envelopes (use vault-in-upload) and envelopes created from a template; 422 from any status but `pending`.",
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

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const form = await readMultipartForm(c.req.raw, { fileField: "file", maxFileBytes: MAX_PDF_BYTES });
  const data = await attachEnvelopeDocument(c.var.ctx, {
    envelopeId: c.req.valid("param").envelope_id,
    form,
  });
  return c.json({ data }, 200);
};
