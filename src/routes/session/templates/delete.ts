import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { deleteTemplate } from "../../../services/templates/console-templates";
import { TemplateParams, TemplateSchema } from "../../../services/templates/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "delete",
      operationId: "deleteTemplate",
      path: "/templates/{template_id}",
      summary: "Delete a template (console)",
      description: "Soft delete: envelopes made from it keep its document; it can no longer start envelopes, join packages or builder sessions.",
      request: { params: TemplateParams },
      responses: { 200: jsonContent(dataOf(TemplateSchema), "The deleted template, with `deleted_at`") },
    },
    [400, 404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await deleteTemplate(c.var.ctx, { templateId: c.req.valid("param").template_id });
  return c.json({ data }, 200);
};
