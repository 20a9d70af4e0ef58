import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, ErrorSchema, jsonBody, jsonContent } from "../../../lib/openapi";
import { BuilderSessionSchema, OpenBuilderSessionBody } from "../../../services/builder/schema";
import { openBatchBuilderSession } from "../../../services/builder/open-batch-session";
import { openBuilderSession } from "../../../services/builder/open-builder-session";
import { sessionRoute } from "../common";
import { KBA_IMMUTABLE_ERRORS } from "../../../services/templates/console-templates";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "post",
      operationId: "openBuilderSession",
      [ERROR_CODES_KEY]: KBA_IMMUTABLE_ERRORS,
      path: "/esign/builder-session",
      summary: "Open the document editor on an envelope (console)",
      description:
        "Builds the envelope's working document from `template_id` (copied), `package_id` (+ `package_template_ids`: kept members in package order; one kept document is copied, several merged) or `template_ids` (2 to 20 merged in order, fields carried over), or starts a new one (`kba_required` chosen here). 400 for the spec's invalid combinations and id lists. With `batch_id` (instead of `envelope_id`) it builds the batch's master template from the batch's source (or the one given), records it as the batch's `master_template_id` and adds `roles`; reopening on the same batch and source continues it. Reopening without a source, or with the same one, continues the working document.",
      request: { body: jsonBody(OpenBuilderSessionBody) },
      responses: {
        201: jsonContent(dataOf(BuilderSessionSchema), "The session and its working document"),
        502: jsonContent(ErrorSchema, "A source PDF could not be fetched, or the signing provider rejected the write"),
      },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  if (body.batch_id && !body.envelope_id) {
    return c.json({ data: await openBatchBuilderSession(c.var.ctx, { batchId: body.batch_id, body }) }, 201);
  }
  const data = await openBuilderSession(c.var.ctx, { body: c.req.valid("json") });
  return c.json({ data }, 201);
};
