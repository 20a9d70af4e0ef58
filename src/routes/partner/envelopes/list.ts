import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { jsonContent, listOf } from "../../../lib/openapi";
import { listEnvelopes } from "../../../services/envelopes/list-envelopes";
import { EnvelopeListItemSchema, ListEnvelopesQuery } from "../../../services/envelopes/schema";
import { envelopeListItem } from "../../../services/envelopes/serialize";
import { partnerRoute } from "../common";

export const route = createRoute(
  partnerRoute(
    "envelopes:read",
    {
      method: "get",
      operationId: "listEnvelopes",
      path: "/partner/envelopes",
      summary: "List envelopes",
      description: "Newest first. Filter by `customer_id` and `status`; `limit` at most 100. Also the way to verify a key: 401 means invalid or deactivated.",
      request: { query: ListEnvelopesQuery },
      responses: { 200: jsonContent(listOf(EnvelopeListItemSchema), "A page of envelopes") },
    },
    [400],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const q = c.req.valid("query");
  const { rows, total } = await listEnvelopes(c.var.ctx, {
    page: q.page,
    limit: q.limit,
    customerId: q.customer_id,
    status: q.status,
  });
  return c.json({ data: rows.map(envelopeListItem), meta: { page: q.page, limit: q.limit, total } }, 200);
};
