import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { jsonContent } from "../../../../lib/openapi";
import { readControlHistory } from "../../../../services/control/read-control-history";
import { ControlHistorySchema, VaultParams } from "../../../../services/control/record-schema";
import { partnerRoute } from "../../common";

export const route = createRoute(
  partnerRoute(
    "vault:read",
    {
      method: "get",
      operationId: "getVaultControlHistory",
      path: "/partner/vault/{vault_id}/control-history",
      summary: "Control history of a vault record",
      description:
        "Every control step of the record (offers, acceptances, rejections, cancellations, expiries, pledge releases, payoff, paper-out), oldest first, read from the envelope's hash-chained audit log: each names its chain entry (`seq`, `entry_hash`) and the API key that acted. To every party of the record; 404 to anyone else.",
      request: { params: VaultParams },
      responses: { 200: jsonContent(ControlHistorySchema, "The control history") },
    },
    [404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  return c.json({ data: await readControlHistory(c.var.ctx, { vaultId: c.req.valid("param").vault_id }) }, 200);
};
