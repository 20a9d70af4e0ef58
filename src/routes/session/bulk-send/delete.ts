import { createRoute, z } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { deleteBatch } from "../../../services/bulk/delete-batch";
import { BatchParams, BatchSchema } from "../../../services/bulk/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "delete",
      operationId: "deleteBulkBatch",
      path: "/bulk-send/{batch_id}",
      tags: ["Bulk send"],
      summary: "Delete a draft or ready batch",
      description: "Soft delete, only while `draft` or `ready` (409 afterwards); the master template is archived with it.",
      request: { params: BatchParams },
      responses: { 200: jsonContent(dataOf(BatchSchema.extend({ deleted_at: z.string() })), "The deleted batch") },
    },
    [404, 409],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await deleteBatch(c.var.ctx, { batchId: c.req.valid("param").batch_id });
  return c.json({ data }, 200);
};
