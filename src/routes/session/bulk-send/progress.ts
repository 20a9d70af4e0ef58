import { createRoute, z } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { jsonContent } from "../../../lib/openapi";
import { getBatchProgress } from "../../../services/bulk/get-progress";
import { BatchParams, ProgressMetaSchema, ProgressQuery, ProgressSchema } from "../../../services/bulk/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "get",
      operationId: "getBulkProgress",
      path: "/bulk-send/{batch_id}",
      tags: ["Bulk send"],
      summary: "Progress of a batch",
      description:
        "`batch` (status and the four counters), `counts` per item status, and a page of `items` (`page`, `limit`, `status`). Served from the batch's own counters: poll it every couple of seconds while running.",
      request: { params: BatchParams, query: ProgressQuery },
      responses: { 200: jsonContent(z.object({ data: ProgressSchema, meta: ProgressMetaSchema }), "The batch's progress") },
    },
    [400, 404, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const q = c.req.valid("query");
  const body = await getBatchProgress(c.var.ctx, { batchId: c.req.valid("param").batch_id, ...q });
  return c.json(body, 200);
};
