import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { jsonContent, listOf } from "../../../../lib/openapi";
import { listTransfers } from "../../../../services/control/list-transfers";
import { TransferListQuery, TransferSchema } from "../../../../services/control/schema";
import { partnerRoute } from "../../common";

export const route = createRoute(
  partnerRoute(
    "vault:read",
    {
      method: "get",
      operationId: "listVaultTransfers",
      path: "/partner/vault/transfers",
      summary: "List the caller's transfers of control",
      description:
        "Newest first: the transfers offered to the caller (`direction=incoming`, the default) or by it (`outgoing`), optionally of one `status`; `limit` at most 100. A pending transfer past its `expires_at` shows as `pending` until the expiry job (every minute) settles it as `expired`.",
      request: { query: TransferListQuery },
      responses: { 200: jsonContent(listOf(TransferSchema), "A page of transfers") },
    },
    [400],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const q = c.req.valid("query");
  const { rows, total } = await listTransfers(c.var.ctx, { direction: q.direction, status: q.status ?? null, page: q.page, limit: q.limit });
  return c.json({ data: rows, meta: { page: q.page, limit: q.limit, total } }, 200);
};
