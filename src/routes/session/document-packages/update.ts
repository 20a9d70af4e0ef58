import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { requireContentType } from "../../../middleware/content-type";
import { requireMembership } from "../../../middleware/session-auth";
import { serviceContext } from "../../../services/context";
import { DocumentPackageSchema, PackageParams, UpdatePackageBody } from "../../../services/packages/schema";
import { updatePackage } from "../../../services/packages/save-package";
import { sessionRoute } from "../common";
import { PACKAGE_502 } from "./create";

export const route = createRoute(
  sessionRoute(
    {
      method: "patch",
      path: "/document-packages/{package_id}",
      summary: "Update a document package (console)",
      description: "Renames it or replaces its members; `kba_required` and `provider_instance` are derived again (they are not settable).",
      middleware: [requireContentType("json"), requireMembership()] as const,
      request: { params: PackageParams, body: jsonBody(UpdatePackageBody) },
      responses: { 200: jsonContent(dataOf(DocumentPackageSchema), "The package"), 502: PACKAGE_502 },
    },
    [400, 404, 415, 422],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await updatePackage(serviceContext(c.env, (p) => c.executionCtx.waitUntil(p)), {
    orgId: c.var.membership.orgId,
    actor: c.var.actor,
    packageId: c.req.valid("param").package_id,
    body: c.req.valid("json"),
  });
  return c.json({ data }, 200);
};
