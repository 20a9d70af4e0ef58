import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { getPartnerTemplate } from "../../../services/templates/get-template";
import { PartnerTemplateSchema, TemplateParams } from "../../../services/templates/schema";
import { partnerRoute } from "../common";
import { TEMPLATE_READ_SCOPES } from "./common";

export const route = createRoute(
  partnerRoute(
    TEMPLATE_READ_SCOPES,
    {
      method: "get",
      operationId: "getPartnerTemplate",
      path: "/partner/templates/{template_id}",
      summary: "Get a template",
      description:
        "The template with `kba_required`, its `roles` (the `role` of each signer on send) and every placed field. A deleted template, or one of another organization, is 404.",
      request: { params: TemplateParams },
      responses: { 200: jsonContent(dataOf(PartnerTemplateSchema), "The template, with its fields") },
    },
    [400, 404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await getPartnerTemplate(c.var.ctx, { templateId: c.req.valid("param").template_id });
  return c.json({ data }, 200);
};
