import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ErrorSchema, jsonContent } from "../../../lib/openapi";
import { BatchParams, BatchSchema } from "../../../services/bulk/schema";
import { submitBatch } from "../../../services/bulk/submit-batch";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "post",
      operationId: "submitBulkBatch",
      path: "/bulk-send/{batch_id}/submit",
      tags: ["Bulk send"],
      summary: "Submit the batch: start sending",
      description:
        "No body. 202 with the batch `running`; its Durable Object sends the envelopes in chunks with retries. 422: no master template, no client with an email, auto-vault terms not accepted, or the master template's party count differs from the signer count (one, two with `add_me_as_signer`). 409 once submitted.",
      request: { params: BatchParams },
      responses: {
        202: jsonContent(dataOf(BatchSchema), "The batch, running"),
        502: jsonContent(ErrorSchema, "The master template could not be read from the signing provider"),
        503: jsonContent(ErrorSchema, "Not configured in this environment: bulk send (BULK_BATCH), email (EMAIL_TRANSPORT) or, for a KBA batch, the KBA provider; the error names which"),
      },
    },
    [404, 409, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await submitBatch(c.var.ctx, { batchId: c.req.valid("param").batch_id });
  return c.json({ data }, 202);
};
