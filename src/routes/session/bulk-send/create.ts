import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { createBatch } from "../../../services/bulk/create-batch";
import { BatchSchema, CreateBatchBody } from "../../../services/bulk/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "post",
      operationId: "createBulkBatch",
      path: "/bulk-send",
      tags: ["Bulk send"],
      summary: "Create a bulk-send batch",
      description:
        "A `draft` batch sending one document to up to 1,000 clients. `kba_required` and `provider_instance` are derived from the source template or package; `kba_required` is settable only for `new`. The caller is the sender of every envelope.",
      request: { body: jsonBody(CreateBatchBody) },
      responses: { 201: jsonContent(dataOf(BatchSchema), "The new batch") },
    },
    [400, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await createBatch(c.var.ctx, { body: c.req.valid("json") });
  return c.json({ data }, 201);
};
