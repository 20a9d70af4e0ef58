import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ErrorSchema, jsonBody, jsonContent } from "../../../lib/openapi";
import { addTemplateFields } from "../../../services/templates/add-fields";
import { AddFieldsBody, FieldsAddedResponse, TemplateParams } from "../../../services/templates/schema";
import { partnerRoute } from "../common";
import { ProviderErrors } from "./common";

export const route = createRoute(
  partnerRoute(
    "envelopes:write",
    {
      method: "post",
      operationId: "addTemplateFields",
      path: "/partner/templates/{template_id}/fields",
      summary: "Add fields to a template",
      description:
        "Absolute and anchor placements may be mixed. Anchors are searched in the stored PDF's text layer (case-insensitive, whitespace-normalized); not found, or an occurrence beyond the matches, is 422. Returns the fields added by this request. Beta (spec 9.2).",
      request: { params: TemplateParams, body: jsonBody(AddFieldsBody) },
      responses: {
        200: jsonContent(dataOf(FieldsAddedResponse), "The fields added, resolved"),
        ...ProviderErrors,
        502: jsonContent(ErrorSchema, "The template PDF could not be fetched, or the signing provider rejected the write"),
      },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await addTemplateFields(c.var.ctx, {
    templateId: c.req.valid("param").template_id,
    fields: c.req.valid("json").fields,
  });
  return c.json({ data }, 200);
};
