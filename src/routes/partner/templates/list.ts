import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { jsonContent, listOf } from "../../../lib/openapi";
import { listTemplates } from "../../../services/templates/list-templates";
import { ListTemplatesQuery, PartnerTemplateListItemSchema } from "../../../services/templates/schema";
import { partnerRoute } from "../common";
import { TEMPLATE_READ_SCOPES } from "./common";

export const route = createRoute(
  partnerRoute(
    TEMPLATE_READ_SCOPES,
    {
      method: "get",
      operationId: "listTemplates",
      path: "/partner/templates",
      summary: "List templates",
      description:
        "The organization's templates (uploaded here or made in the console), newest first; deleted ones are not listed. Each item carries `kba_required` and the template's `roles`; its fields come with GET /partner/templates/{template_id}. `limit` at most 100.",
      request: { query: ListTemplatesQuery },
      responses: { 200: jsonContent(listOf(PartnerTemplateListItemSchema), "A page of templates") },
    },
    [400],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const q = c.req.valid("query");
  const { items, total } = await listTemplates(c.var.ctx, { page: q.page, limit: q.limit });
  return c.json({ data: items, meta: { page: q.page, limit: q.limit, total } }, 200);
};
