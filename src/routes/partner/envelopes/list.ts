import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { jsonContent, listOf, partnerRoute } from "../../../lib/openapi";
import { listEnvelopes } from "../../../services/envelopes/list-envelopes";
import { EnvelopeListItemSchema, ListEnvelopesQuery } from "../../../services/envelopes/schema";
import { envelopeListItem } from "../../../services/envelopes/serialize";
import { requireScope } from "../../../middleware/partner-auth";

export const route = createRoute(
  partnerRoute(
    "envelopes:read",
    {
      method: "get",
      path: "/partner/envelopes",
      summary: "List envelopes",
      description: "Newest first. Filter by `customer_id` and `status`; `limit` at most 100. Also the way to verify a key: 401 means invalid or deactivated.",
      middleware: [requireScope("envelopes:read")] as const,
      request: { query: ListEnvelopesQuery },
      responses: { 200: jsonContent(listOf(EnvelopeListItemSchema), "A page of envelopes") },
    },
    [400],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const q = c.req.valid("query");
  const { rows, total } = await listEnvelopes(c.env.DB, {
    orgId: c.var.apiKey.orgId,
    page: q.page,
    limit: q.limit,
    customerId: q.customer_id,
    status: q.status,
  });
  return c.json({ data: rows.map(envelopeListItem), meta: { page: q.page, limit: q.limit, total } }, 200);
};
