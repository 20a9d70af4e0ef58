import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ErrorSchema, jsonBody, jsonContent } from "../../../lib/openapi";
import { BuilderSessionSchema, OpenBuilderSessionBody } from "../../../services/builder/schema";
import { openBuilderSession } from "../../../services/builder/open-builder-session";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "post",
      operationId: "openBuilderSession",
      path: "/esign/builder-session",
      summary: "Open the document editor on an envelope (console)",
      description:
        "Builds the envelope's working document from `template_id` (copied), `package_id` (+ `package_template_ids`: kept members in package order; one kept document is copied, several merged) or `template_ids` (2 to 20 merged in order, fields carried over), or starts a new one (`kba_required` chosen here). 400 for the spec's invalid combinations and id lists; `batch_id` is 422 until bulk send exists. Reopening without a source, or with the same one, continues the working document.",
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
  const data = await openBuilderSession(c.var.ctx, {
    userId: c.var.session.userId,
    body: c.req.valid("json"),
  });
  return c.json({ data }, 201);
};
