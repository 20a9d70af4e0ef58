import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { OrgSettingsSchema } from "../../../services/i18n/schema";
import { getOrgSettings } from "../../../services/organizations/org-settings";
import { sessionRoute } from "../common";
import { ORG_TAGS } from "./params";

export const route = createRoute(
  sessionRoute("any member", {
    method: "get",
    operationId: "getOrgSettings",
    path: "/org/settings",
    tags: ORG_TAGS,
    summary: "Read the organization's settings",
    description: "`default_locale`: the language (`en`, `es`) of new envelopes whose create names none: their signing page, signer emails and shipped disclosure.",
    responses: { 200: jsonContent(dataOf(OrgSettingsSchema), "The organization's settings") },
  }),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => c.json({ data: await getOrgSettings(c.var.ctx) }, 200);
