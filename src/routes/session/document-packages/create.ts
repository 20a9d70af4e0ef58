import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ErrorSchema, jsonBody, jsonContent } from "../../../lib/openapi";
import { CreatePackageBody, DocumentPackageSchema } from "../../../services/packages/schema";
import { createPackage } from "../../../services/packages/save-package";
import { sessionRoute } from "../common";

export const PACKAGE_502 = jsonContent(ErrorSchema, "A member could not be copied to the KBA (cloud) signing account (built-in provider: its PDF is missing from storage, or the provider's store refused the write)");

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "post",
      operationId: "createDocumentPackage",
      path: "/document-packages",
      summary: "Create a document package (console)",
      description: "`kba_required` (any member requires KBA) and `provider_instance` are derived, per package and per item; in a KBA package the other members are copied to the `cloud` account.",
      request: { body: jsonBody(CreatePackageBody) },
      responses: { 201: jsonContent(dataOf(DocumentPackageSchema), "The new package"), 502: PACKAGE_502 },
    },
    [400, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await createPackage(c.var.ctx, { body: c.req.valid("json") });
  return c.json({ data }, 201);
};
