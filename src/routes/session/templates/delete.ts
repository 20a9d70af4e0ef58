import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { requireMembership } from "../../../middleware/session-auth";
import { serviceContext } from "../../../services/context";
import { deleteTemplate } from "../../../services/templates/console-templates";
import { TemplateParams, TemplateSchema } from "../../../services/templates/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    {
      method: "delete",
      path: "/templates/{template_id}",
      summary: "Delete a template (console)",
      description: "Soft delete: envelopes made from it keep its document; it can no longer start envelopes, join packages or builder sessions.",
      middleware: [requireMembership()] as const,
      request: { params: TemplateParams },
      responses: { 200: jsonContent(dataOf(TemplateSchema), "The deleted template, with `deleted_at`") },
    },
    [400, 404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await deleteTemplate(serviceContext(c.env, (p) => c.executionCtx.waitUntil(p)), { orgId: c.var.membership.orgId, actor: c.var.actor, templateId: c.req.valid("param").template_id });
  return c.json({ data }, 200);
};
