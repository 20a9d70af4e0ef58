import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { jsonContent, listOf } from "../../../lib/openapi";
import { readTimeline } from "../../../services/read-back/read-timeline";
import { TimelineEntrySchema, TimelineQuery } from "../../../services/read-back/schema";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "./params";

export const route = createRoute(
  partnerRoute(
    "envelopes:read",
    {
      method: "get",
      operationId: "listEnvelopeEvents",
      path: "/partner/envelopes/{envelope_id}/events",
      summary: "Read an envelope's timeline (its audit chain)",
      description:
        "Every entry of the envelope's tamper-evident audit chain, oldest first (`seq` 1, 2, …), exactly as hashed: recompute each `hash` (SHA-256 of the canonical JSON described on `hash`) and check that each `prev_hash` is the previous entry's `hash` (64 zeros for the first). `meta.total` is the chain's length as the envelope records it. `limit` at most 100. Entries never carry a signing link, slug, session or secret.",
      request: { params: EnvelopeParams, query: TimelineQuery },
      responses: { 200: jsonContent(listOf(TimelineEntrySchema), "A page of the envelope's timeline") },
    },
    [400, 404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const q = c.req.valid("query");
  return c.json(await readTimeline(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id, page: q.page, limit: q.limit }), 200);
};
