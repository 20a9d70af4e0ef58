import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ErrorSchema, jsonBody, jsonContent } from "../../../lib/openapi";
import { createConsoleTemplate } from "../../../services/templates/console-templates";
import { CreateConsoleTemplateBody, TemplateSchema } from "../../../services/templates/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "post",
      operationId: "consoleCreateTemplate",
      path: "/templates",
      summary: "Create a template (console)",
      description: "Any member of the organization. `kba_required` is fixed here: KBA templates live in the `cloud` provider instance (`provider_instance` is derived). The template has no document until one is built in a builder session.",
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

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await createConsoleTemplate(c.var.ctx, { body: c.req.valid("json") });
  return c.json({ data }, 201);
};
