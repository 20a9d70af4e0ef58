import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../../../lib/openapi";
import { HoldSchema, VaultParams } from "../../../../services/control/record-schema";
import { PLACE_HOLD_ERRORS, placeHold, RELEASE_HOLD_ERRORS, releaseHold } from "../../../../services/retention/holds";
import { HoldBody, HoldParams, ReleasedHoldSchema } from "../../../../services/retention/schema";
import { partnerRoute } from "../../common";

export const placeRoute = createRoute(
  partnerRoute(
    "vault:control",
    {
      method: "post",
      operationId: "placeVaultHold",
      [ERROR_CODES_KEY]: PLACE_HOLD_ERRORS,
      path: "/partner/vault/{vault_id}/holds",
      summary: "Place a legal hold on a vault record",
      description:
        "By any party of the record (its originator, controller or pledgor): while the hold is in force the record cannot be destroyed, by hand or by the retention cron (409 `legal_hold`, which wins over `retention_period`). Recorded on the envelope's chain (`vault.hold_placed`); a new certificate version names the holds in force; every party receives `vault.hold_placed`. The record read lists it under `holds`. Only whoever placed a hold releases it. Not a party: 404 (an organization only offered a transfer: 403 `not_a_party`); a destroyed record: 409 `record_destroyed`.",
      request: { params: VaultParams, body: jsonBody(HoldBody) },
      responses: { 201: jsonContent(dataOf(HoldSchema), "The hold placed") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const placeHandler: OrgRouteHandler<typeof placeRoute> = async (c) => {
  const body = c.req.valid("json");
  const hold = await placeHold(c.var.ctx, { vaultId: c.req.valid("param").vault_id, by: { orgId: c.var.ctx.orgId }, reason: body.reason, reference: body.reference ?? null });
  return c.json({ data: hold }, 201);
};

export const releaseRoute = createRoute(
  partnerRoute(
    "vault:control",
    {
      method: "delete",
      operationId: "releaseVaultHold",
      [ERROR_CODES_KEY]: RELEASE_HOLD_ERRORS,
      path: "/partner/vault/{vault_id}/holds/{hold_id}",
      summary: "Release a legal hold the caller placed",
      description:
        "By the organization that placed the hold (another party: 403 `not_hold_owner`; a hold the operator placed is the operator's to release). Recorded on the chain (`vault.hold_released`); every party receives `vault.hold_released`. Already released: 409 `hold_released`; unknown hold or not a party: 404.",
      request: { params: HoldParams },
      responses: { 200: jsonContent(dataOf(ReleasedHoldSchema), "The hold, released") },
    },
    [404, 409],
  ),
);

export const releaseHandler: OrgRouteHandler<typeof releaseRoute> = async (c) => {
  const { vault_id, hold_id } = c.req.valid("param");
  return c.json({ data: await releaseHold(c.var.ctx, { vaultId: vault_id, holdId: hold_id, by: { orgId: c.var.ctx.orgId } }) }, 200);
};
