import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { requireMembership } from "../../../middleware/session-auth";
import { readTemplate } from "../../../services/templates/console-templates";
import { TemplateParams, TemplateSchema } from "../../../services/templates/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    {
      method: "get",
      path: "/templates/{template_id}",
      summary: "Get a template with its fields (console)",
      middleware: [requireMembership()] as const,
      request: { params: TemplateParams },
      responses: { 200: jsonContent(dataOf(TemplateSchema), "The template") },
    },
    [400, 404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  return c.json({ data: await readTemplate(c.env.DB, c.var.membership.orgId, c.req.valid("param").template_id) }, 200);
};
