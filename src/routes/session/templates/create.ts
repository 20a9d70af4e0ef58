import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, ErrorSchema, jsonBody, jsonContent } from "../../../lib/openapi";
import { requireContentType } from "../../../middleware/content-type";
import { requireMembership } from "../../../middleware/session-auth";
import { serviceContext } from "../../../services/context";
import { createConsoleTemplate } from "../../../services/templates/console-templates";
import { CreateConsoleTemplateBody, TemplateSchema } from "../../../services/templates/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    {
      method: "post",
      path: "/templates",
      summary: "Create a template (console)",
      description: "Any member of the organization. `kba_required` is fixed here: KBA templates live in the `cloud` provider instance (`provider_instance` is derived). The template has no document until one is built in a builder session.",
      middleware: [requireContentType("json"), requireMembership()] as const,
      request: { body: jsonBody(CreateConsoleTemplateBody) },
      responses: {
        201: jsonContent(dataOf(TemplateSchema), "The new template"),
        500: jsonContent(ErrorSchema, "The template record could not be persisted"),
        502: jsonContent(ErrorSchema, "The signing provider rejected the create"),
      },
    },
    [400, 415, 422],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await createConsoleTemplate(serviceContext(c.env, (p) => c.executionCtx.waitUntil(p)), { orgId: c.var.membership.orgId, actor: c.var.actor, body: c.req.valid("json") });
  return c.json({ data }, 201);
};
