import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { readTemplate } from "../../../services/templates/console-templates";
import { TemplateParams, TemplateSchema } from "../../../services/templates/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "get",
      operationId: "getTemplate",
      path: "/templates/{template_id}",
      summary: "Get a template with its fields (console)",
      request: { params: TemplateParams },
      responses: { 200: jsonContent(dataOf(TemplateSchema), "The template") },
    },
    [400, 404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  return c.json({ data: await readTemplate(c.var.ctx, { templateId: c.req.valid("param").template_id }) }, 200);
};
