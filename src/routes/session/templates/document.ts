import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { MAX_PDF_BYTES, readMultipartForm } from "../../../lib/multipart";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { attachTemplateDocument } from "../../../services/templates/attach-template-document";
import { TemplateParams, TemplateSchema } from "../../../services/templates/schema";
import { pdfUploadBody, ProviderErrors, TooLarge } from "../../partner/templates/common";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "put",
      operationId: "uploadTemplateDocument",
      path: "/templates/{template_id}/document",
      summary: "Upload a console template's PDF (multipart)",
      description: "Once per template (409 afterwards). Multipart `file`, at most 50 MB, checked by its bytes (415); embedded tags become fields and are stripped.",
      request: {
        params: TemplateParams,
        body: pdfUploadBody(),
      },
      responses: {
        200: jsonContent(dataOf(TemplateSchema), "The template with its document and tag fields"),
        413: TooLarge,
        ...ProviderErrors,
      },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const form = await readMultipartForm(c.req.raw, { fileField: "file", maxFileBytes: MAX_PDF_BYTES });
  const data = await attachTemplateDocument(c.var.ctx, {
    templateId: c.req.valid("param").template_id,
    form,
  });
  return c.json({ data }, 200);
};
