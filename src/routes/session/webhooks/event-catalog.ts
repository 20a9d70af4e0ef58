import { createRoute, z } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { jsonContent } from "../../../lib/openapi";
import { EVENT_TYPES } from "../../../services/events/outbox";
import { EventCatalogEntrySchema } from "../../../services/webhooks/schema";
import { sessionRoute } from "../common";
import { TAGS } from "./params";

const CATALOG = Object.entries(EVENT_TYPES).map(([event_type, description]) => ({ event_type, domain: event_type.split(".")[0]!, description }));

export const route = createRoute(
  sessionRoute("admin", {
    method: "get",
    operationId: "listWebhookEventTypes",
    path: "/webhooks/events",
    tags: TAGS,
    summary: "The event catalog (admin)",
    description: "Every event type the service emits, with its domain (for `<domain>.*` selectors) and when it fires.",
    responses: { 200: jsonContent(z.object({ data: z.array(EventCatalogEntrySchema) }), "The event types") },
  }),
);

export const handler: OrgRouteHandler<typeof route> = (c) => c.json({ data: CATALOG }, 200);
