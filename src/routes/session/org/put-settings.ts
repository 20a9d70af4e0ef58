import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { OrgSettingsBody, OrgSettingsSchema } from "../../../services/i18n/schema";
import { setOrgSettings } from "../../../services/organizations/org-settings";
import { sessionRoute } from "../common";
import { ORG_TAGS } from "./params";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "put",
      operationId: "updateOrgSettings",
      path: "/org/settings",
      tags: ORG_TAGS,
      summary: "Change the organization's settings (admin)",
      description: "Sets `default_locale`, the language of new envelopes whose create names none; envelopes already created keep theirs. Recorded in the organization's audit chain.",
      request: { body: jsonBody(OrgSettingsBody) },
      responses: { 200: jsonContent(dataOf(OrgSettingsSchema), "The settings as stored") },
    },
    [400, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) =>
  c.json({ data: await setOrgSettings(c.var.ctx, { defaultLocale: c.req.valid("json").default_locale }) }, 200);
