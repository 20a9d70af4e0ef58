import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { getEmbedSettings } from "../../../services/embed/embed-settings";
import { EmbedSettingsSchema } from "../../../services/embed/schema";
import { sessionRoute } from "../common";
import { ORG_TAGS } from "./params";

export const route = createRoute(
  sessionRoute("admin", {
    method: "get",
    operationId: "getEmbedSettings",
    path: "/org/embed-settings",
    tags: ORG_TAGS,
    summary: "Read the embed settings (admin)",
    description:
      "The origins allowed to frame the signing page and the embed widgets in an iframe, and the CSP `frame-ancestors` directive those pages are served with. Without origins only the embed host itself may frame them.",
    responses: { 200: jsonContent(dataOf(EmbedSettingsSchema), "The organization's embed settings") },
  }),
);

export const handler: OrgRouteHandler<typeof route> = async (c) =>
  c.json({ data: await getEmbedSettings(c.var.ctx) }, 200);
