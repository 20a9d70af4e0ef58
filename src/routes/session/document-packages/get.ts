import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { requireMembership } from "../../../middleware/session-auth";
import { getPackage, packageDetail } from "../../../services/packages/repository";
import { DocumentPackageSchema, PackageParams } from "../../../services/packages/schema";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    {
      method: "get",
      path: "/document-packages/{package_id}",
      summary: "Get a document package (console)",
      middleware: [requireMembership()] as const,
      request: { params: PackageParams },
      responses: { 200: jsonContent(dataOf(DocumentPackageSchema), "The package") },
    },
    [400, 404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const { pkg, items } = await getPackage(c.env.DB, c.var.membership.orgId, c.req.valid("param").package_id);
  return c.json({ data: packageDetail(pkg, items) }, 200);
};
