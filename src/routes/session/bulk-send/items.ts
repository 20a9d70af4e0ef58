import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { BatchParams, SetItemsBody, SetItemsResultSchema } from "../../../services/bulk/schema";
import { setBatchItems } from "../../../services/bulk/set-items";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "post",
      operationId: "setBulkItems",
      path: "/bulk-send/{batch_id}/items",
      tags: ["Bulk send"],
      summary: "Set the batch's clients",
      description:
        "1 to 1,000 customer ids, replacing the list (a repeated id is 422). Ids outside the organization are `rejected`; clients without an email, or with the sender's own, are kept as `skipped` and listed in `skipped_no_email`. The batch becomes `ready`.",
      request: { params: BatchParams, body: jsonBody(SetItemsBody) },
      responses: { 200: jsonContent(dataOf(SetItemsResultSchema), "What was added, skipped and rejected") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const { customer_ids: customerIds, locales, phones } = c.req.valid("json");
  const data = await setBatchItems(c.var.ctx, { batchId: c.req.valid("param").batch_id, customerIds, locales, phones });
  return c.json({ data }, 200);
};
