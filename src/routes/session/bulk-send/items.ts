import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../../lib/openapi";
import { SMS_ERRORS } from "../../../providers/sms";
import { BatchParams, SetItemsBody, SetItemsResultSchema } from "../../../services/bulk/schema";
import { setBatchItems } from "../../../services/bulk/set-items";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "post",
      operationId: "setBulkItems",
      [ERROR_CODES_KEY]: SMS_ERRORS,
      path: "/bulk-send/{batch_id}/items",
      tags: ["Bulk send"],
      summary: "Set the batch's clients",
      description:
        "1 to 1,000 clients, replacing the list: `customer_ids`, or `items` giving each client its `locale` and, as a single send's signer, `auth: \"sms_otp\"` with a `phone` (exactly one of the two; a repeated id is 422). Ids outside the organization are `rejected`; clients without an email, or with the sender's own, are kept as `skipped` and listed in `skipped_no_email`. The batch becomes `ready`. A client with `sms_otp` (or a phone in the deprecated `phones`) when no SMS provider is configured: 503 naming `SMS_PROVIDER`, before anything is changed.",
      request: { params: BatchParams, body: jsonBody(SetItemsBody) },
      responses: { 200: jsonContent(dataOf(SetItemsResultSchema), "What was added, skipped and rejected") },
    },
    [400, 404, 409, 415, 422, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await setBatchItems(c.var.ctx, { batchId: c.req.valid("param").batch_id, ...c.req.valid("json") });
  return c.json({ data }, 200);
};
