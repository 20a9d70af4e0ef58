import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { cancelBatch } from "../../../services/bulk/cancel-batch";
import { BatchParams, BatchSchema } from "../../../services/bulk/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "post",
      operationId: "cancelBulkBatch",
      path: "/bulk-send/{batch_id}/cancel",
      tags: ["Bulk send"],
      summary: "Cancel a running batch",
      description: "No body. Unprocessed items become `cancelled`; envelopes already sent are untouched; the workflow stops before its next item. 409 unless the batch is running.",
      request: { params: BatchParams },
      responses: { 200: jsonContent(dataOf(BatchSchema), "The batch, cancelled") },
    },
    [404, 409],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await cancelBatch(c.var.ctx, { batchId: c.req.valid("param").batch_id });
  return c.json({ data }, 200);
};
