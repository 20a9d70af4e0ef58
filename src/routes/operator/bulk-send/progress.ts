import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { jsonContent } from "../../../lib/openapi";
import { getBatchProgressAsOperator } from "../../../services/bulk/get-progress";
import { BatchParams, ProgressMetaSchema, ProgressQuery, ProgressSchema } from "../../../services/bulk/schema";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute(
    {
      method: "get",
      operationId: "operatorBulkProgress",
      path: "/operator/bulk-send/{batch_id}",
      summary: "Progress of any organization's bulk-send batch",
      description: "What `GET /bulk-send/:id` answers the organization's admins, for the operator (`npm run operator -- bulk-progress <batch_id>` draws it as a live bar).",
      request: { params: BatchParams, query: ProgressQuery },
      responses: { 200: jsonContent(z.object({ data: ProgressSchema, meta: ProgressMetaSchema }), "The batch's progress") },
    },
    [400, 404, 422],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) =>
  c.json(await getBatchProgressAsOperator(c.var.ctx, { batchId: c.req.valid("param").batch_id, ...c.req.valid("query") }), 200);
