import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { requireContentType } from "../../../middleware/content-type";
import { requireMembership } from "../../../middleware/session-auth";
import { serviceContext } from "../../../services/context";
import { updateTemplate } from "../../../services/templates/console-templates";
import { TemplateParams, TemplateSchema, UpdateTemplateBody } from "../../../services/templates/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    {
      method: "patch",
      path: "/templates/{template_id}",
      summary: "Update a template (console)",
      description: "Renames it or changes `external_id`. `kba_required` is immutable: a different value is 409 (code `kba_immutable`); the same value is accepted.",
      middleware: [requireContentType("json"), requireMembership()] as const,
      request: { params: TemplateParams, body: jsonBody(UpdateTemplateBody) },
      responses: { 200: jsonContent(dataOf(TemplateSchema), "The template") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await updateTemplate(serviceContext(c.env, (p) => c.executionCtx.waitUntil(p)), {
    orgId: c.var.membership.orgId,
    actor: c.var.actor,
    templateId: c.req.valid("param").template_id,
    body: c.req.valid("json"),
  });
  return c.json({ data }, 200);
};
