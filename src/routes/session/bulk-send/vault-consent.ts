import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { BatchParams, BatchSchema, VaultConsentBody } from "../../../services/bulk/schema";
import { setBatchVaultConsent } from "../../../services/bulk/vault-consent";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "post",
      operationId: "setBulkVaultConsent",
      path: "/bulk-send/{batch_id}/vault-consent",
      tags: ["Bulk send"],
      summary: "Accept (or withdraw) the batch's auto-vault terms",
      description:
        "Enabling needs `acknowledge_authoritative_copy: true`; accepted once per batch (the first acceptance's time and user are kept) and stamped onto every envelope as `vault_in_terms_accepted_at` / `_by`. `auto_vault_enabled: false` clears it.",
      request: { params: BatchParams, body: jsonBody(VaultConsentBody) },
      responses: { 200: jsonContent(dataOf(BatchSchema), "The batch") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  const data = await setBatchVaultConsent(c.var.ctx, {
    batchId: c.req.valid("param").batch_id,
    enabled: body.auto_vault_enabled,
    acknowledged: body.acknowledge_authoritative_copy === true,
  });
  return c.json({ data }, 200);
};
