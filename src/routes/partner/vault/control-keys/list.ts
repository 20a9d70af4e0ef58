import { createRoute, z } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { jsonContent } from "../../../../lib/openapi";
import { ControlKeySchema } from "../../../../services/control/key-schema";
import { listOrgControlKeys } from "../../../../services/control/list-control-keys";
import { partnerRoute } from "../../common";

export const route = createRoute(
  partnerRoute("vault:read", {
    method: "get",
    operationId: "listControlKeys",
    path: "/partner/vault/control-keys",
    summary: "List the organization's control keys",
    description: "The public keys registered for control, oldest first (at most 10). Empty: the organization acts on control with its API key alone.",
    responses: { 200: jsonContent(z.object({ data: z.array(ControlKeySchema) }), "The control keys") },
  }),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => c.json({ data: await listOrgControlKeys(c.var.ctx) }, 200);
