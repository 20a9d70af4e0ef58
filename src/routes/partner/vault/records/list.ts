import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { jsonContent, listOf } from "../../../../lib/openapi";
import { listControlBook } from "../../../../services/control/list-book";
import { BookQuery, VaultRecordSummarySchema } from "../../../../services/control/record-schema";
import { partnerRoute } from "../../common";

export const route = createRoute(
  partnerRoute(
    "vault:read",
    {
      method: "get",
      operationId: "listVaultBook",
      path: "/partner/vault",
      summary: "List the caller's book of vault records",
      description:
        "The vault records the caller holds in one `role`: those it controls (default: the authoritative copies it may download), those it originated (vaulted), or those it has pledged. Newest first; `limit` at most 100. Each item is the record of GET /partner/vault/{vault_id} without its live compliance.",
      request: { query: BookQuery },
      responses: { 200: jsonContent(listOf(VaultRecordSummarySchema), "A page of vault records") },
    },
    [400],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const q = c.req.valid("query");
  const { rows, total } = await listControlBook(c.var.ctx, { role: q.role, page: q.page, limit: q.limit });
  return c.json({ data: rows, meta: { page: q.page, limit: q.limit, total } }, 200);
};
