import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { ControlKeysRecoveredSchema } from "../../../services/control/key-schema";
import { recoverControlKeys } from "../../../services/control/recover-control-keys";
import { OrgIdParams } from "../../../services/operator/schema";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute(
    {
      method: "delete",
      operationId: "recoverControlKeys",
      path: "/operator/orgs/{org_id}/control-keys",
      summary: "Remove every control key of an organization (recovery)",
      description:
        "For an organization that lost the private keys of its control keys: removes all of them, so it acts on control with its API key alone again and registers new keys unsigned. Audited on the organization's chain (`control_key.recovered`, naming the operator and the kids removed). Unknown organization: 404.",
      request: { params: OrgIdParams },
      responses: { 200: jsonContent(dataOf(ControlKeysRecoveredSchema), "The keys removed") },
    },
    [400, 404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) =>
  c.json({ data: await recoverControlKeys(c.var.ctx, { orgId: c.req.valid("param").org_id }) }, 200);
