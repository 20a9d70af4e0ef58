import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../../lib/openapi";
import { BatchParams, BatchSchema, UpdateBatchBody } from "../../../services/bulk/schema";
import { updateBatch } from "../../../services/bulk/update-batch";
import { sessionRoute } from "../common";
import { KBA_IMMUTABLE_ERRORS } from "../../../services/templates/console-templates";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "patch",
      operationId: "updateBulkBatch",
      [ERROR_CODES_KEY]: KBA_IMMUTABLE_ERRORS,
      path: "/bulk-send/{batch_id}",
      tags: ["Bulk send"],
      summary: "Change a bulk-send batch",
      description: "Only while `draft` or `ready` (409 afterwards). `kba_required` only for `new`, before the editor is opened (409 otherwise). A `master_template_id` whose template differs from the batch in `kba_required` is 409 `kba_immutable`: a master never changes the batch's KBA.",
      request: { params: BatchParams, body: jsonBody(UpdateBatchBody) },
      responses: { 200: jsonContent(dataOf(BatchSchema), "The batch") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await updateBatch(c.var.ctx, { batchId: c.req.valid("param").batch_id, body: c.req.valid("json") });
  return c.json({ data }, 200);
};
