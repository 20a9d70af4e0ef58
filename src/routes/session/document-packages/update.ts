import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { DocumentPackageSchema, PackageParams, UpdatePackageBody } from "../../../services/packages/schema";
import { updatePackage } from "../../../services/packages/save-package";
import { sessionRoute } from "../common";
import { PACKAGE_502 } from "./create";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "patch",
      operationId: "updateDocumentPackage",
      path: "/document-packages/{package_id}",
      summary: "Update a document package (console)",
      description: "Renames it or replaces its members; `kba_required` and `provider_instance` are derived again (they are not settable).",
      request: { params: PackageParams, body: jsonBody(UpdatePackageBody) },
      responses: { 200: jsonContent(dataOf(DocumentPackageSchema), "The package"), 502: PACKAGE_502 },
    },
    [400, 404, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await updatePackage(c.var.ctx, {
    packageId: c.req.valid("param").package_id,
    body: c.req.valid("json"),
  });
  return c.json({ data }, 200);
};
