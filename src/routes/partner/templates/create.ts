import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { MAX_PDF_BYTES, readMultipartForm } from "../../../lib/multipart";
import { dataOf, ErrorSchema, jsonContent } from "../../../lib/openapi";
import { createTemplateFromUpload } from "../../../services/templates/create-template";
import { TemplateUploadResponse } from "../../../services/templates/schema";
import { partnerRoute } from "../common";
import { pdfUploadBody, ProviderErrors, TooLarge } from "./common";

export const route = createRoute(
  partnerRoute(
    "envelopes:write",
    {
      method: "post",
      operationId: "createTemplate",
      path: "/partner/templates",
      summary: "Upload a template PDF (multipart)",
      description:
        "Stores the PDF (at most 50 MB, checked by its bytes) and places fields: embedded `{{name;attr=value}}` tags become fields and are stripped from the stored PDF; `fields_json` adds absolute and anchor fields, anchors resolved against the PDF's text layer; `kba_required: true` makes a KBA template. Beta (spec 9.2).",
      request: {
        body: pdfUploadBody(
          {
            name: { type: "string", maxLength: 200 },
            external_id: { type: "string", maxLength: 200 },
            fields_json: { type: "string", description: "JSON-encoded array of TemplateField; omit for an empty template or one placed by embedded tags" },
            kba_required: {
              type: "string",
              enum: ["true", "false"],
              default: "false",
              description: "`true` makes every envelope created from this template require KBA (the template lives in the `cloud` provider instance). Fixed at creation; anything but `true` or `false` is 422.",
            },
          },
          ["name"],
        ),
      },
      responses: {
        200: jsonContent(dataOf(TemplateUploadResponse), "The template, with every field placed"),
        413: TooLarge,
        ...ProviderErrors,
        500: jsonContent(ErrorSchema, "The template record could not be persisted"),
      },
    },
    [400, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const form = await readMultipartForm(c.req.raw, { fileField: "file", maxFileBytes: MAX_PDF_BYTES });
  const data = await createTemplateFromUpload(c.var.ctx, { form });
  return c.json({ data }, 200);
};
