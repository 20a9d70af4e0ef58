import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { setFrameAncestors } from "../../../services/embed/embed-settings";
import { FRAME_ANCESTORS_LIMIT } from "../../../services/embed/frame-ancestors";
import { EmbedSettingsBody, EmbedSettingsSchema } from "../../../services/embed/schema";
import { sessionRoute } from "../common";
import { ORG_TAGS } from "./params";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "put",
      operationId: "updateEmbedSettings",
      path: "/org/embed-settings",
      tags: ORG_TAGS,
      summary: "Replace the embed settings (admin)",
      description: `Replaces the list of origins allowed to frame the signing page and widgets (\`[]\`: only the embed host itself). At most ${FRAME_ANCESTORS_LIMIT}; each \`https://host[:port]\`, optionally \`https://*.domain\`; \`http:\` only for localhost and 127.0.0.1. Entries are stored lowercase without a trailing slash and duplicates dropped; an entry that is not such an origin is 422 at its index (\`path: ["frame_ancestors", i]\`). Recorded in the organization's audit chain.`,
      request: { body: jsonBody(EmbedSettingsBody) },
      responses: { 200: jsonContent(dataOf(EmbedSettingsSchema), "The settings as stored") },
    },
    [400, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const settings = await setFrameAncestors(c.var.ctx, {
    frameAncestors: c.req.valid("json").frame_ancestors,
  });
  return c.json({ data: settings }, 200);
};
