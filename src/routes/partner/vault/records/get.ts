import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, jsonContent } from "../../../../lib/openapi";
import { getControlRecord } from "../../../../services/control/get-record";
import { VaultParams, VaultRecordSchema } from "../../../../services/control/record-schema";
import { partnerRoute } from "../../common";

export const route = createRoute(
  partnerRoute(
    "vault:read",
    {
      method: "get",
      operationId: "getVaultRecord",
      path: "/partner/vault/{vault_id}",
      summary: "Get a vault record and its control",
      description:
        "Who controls the authoritative copy (UCC §9-105): the originator, the controller, the pledgor while pledged, the pending transfer, the record's status (`active`, `paid_off`, `paper_out`) and the live compliance summary. Visible to the originator, the controller, the pledgor and the organization a pending transfer is offered to; 404 to anyone else.",
      request: { params: VaultParams },
      responses: { 200: jsonContent(dataOf(VaultRecordSchema), "The vault record") },
    },
    [404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  return c.json({ data: await getControlRecord(c.var.ctx, { vaultId: c.req.valid("param").vault_id }) }, 200);
};
