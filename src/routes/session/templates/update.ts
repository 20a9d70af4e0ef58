import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../../lib/openapi";
import { KBA_IMMUTABLE_ERRORS, updateTemplate } from "../../../services/templates/console-templates";
import { TemplateParams, TemplateSchema, UpdateTemplateBody } from "../../../services/templates/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "patch",
      operationId: "updateTemplate",
      [ERROR_CODES_KEY]: KBA_IMMUTABLE_ERRORS,
      path: "/templates/{template_id}",
      summary: "Update a template (console)",
      description: "Renames it or changes `external_id`. `kba_required` is immutable: a different value is 409 (code `kba_immutable`); the same value is accepted.",
      request: { params: TemplateParams, body: jsonBody(UpdateTemplateBody) },
      responses: { 200: jsonContent(dataOf(TemplateSchema), "The template") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await updateTemplate(c.var.ctx, {
    templateId: c.req.valid("param").template_id,
    body: c.req.valid("json"),
  });
  return c.json({ data }, 200);
};
