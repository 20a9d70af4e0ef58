import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { readPackage } from "../../../services/packages/read-package";
import { DocumentPackageSchema, PackageParams } from "../../../services/packages/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "get",
      operationId: "getDocumentPackage",
      path: "/document-packages/{package_id}",
      summary: "Get a document package (console)",
      request: { params: PackageParams },
      responses: { 200: jsonContent(dataOf(DocumentPackageSchema), "The package") },
    },
    [400, 404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  return c.json({ data: await readPackage(c.var.ctx, { packageId: c.req.valid("param").package_id }) }, 200);
};
