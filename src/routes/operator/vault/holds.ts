import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../../lib/openapi";
import { HoldSchema, VaultParams } from "../../../services/control/record-schema";
import { HOLD_ON_DESTROYED_ERRORS, placeHold, RELEASE_HOLD_ERRORS, releaseHold } from "../../../services/retention/holds";
import { HoldBody, HoldParams, ReleasedHoldSchema } from "../../../services/retention/schema";
import { operatorRoute } from "../common";

export const placeRoute = createRoute(
  operatorRoute(
    {
      method: "post",
      operationId: "placeVaultHoldAsOperator",
      [ERROR_CODES_KEY]: HOLD_ON_DESTROYED_ERRORS,
      path: "/operator/vault/{vault_id}/holds",
      summary: "Place a legal hold on any vault record",
      description:
        "The operator's legal hold (`placed_by_org_id: null`): the record cannot be destroyed while it is in force (409 `legal_hold`). Recorded on the envelope's chain; every party receives `vault.hold_placed`. Only the operator releases it. Unknown record: 404; destroyed: 409 `record_destroyed`.",
      request: { params: VaultParams, body: jsonBody(HoldBody) },
      responses: { 201: jsonContent(dataOf(HoldSchema), "The hold placed") },
    },
    [404, 409],
  ),
);

export const placeHandler: AppRouteHandler<typeof placeRoute> = async (c) => {
  const body = c.req.valid("json");
  return c.json({ data: await placeHold(c.var.ctx, { vaultId: c.req.valid("param").vault_id, by: { operator: true }, reason: body.reason, reference: body.reference ?? null }) }, 201);
};

export const releaseRoute = createRoute(
  operatorRoute(
    {
      method: "delete",
      operationId: "releaseVaultHoldAsOperator",
      [ERROR_CODES_KEY]: RELEASE_HOLD_ERRORS,
      path: "/operator/vault/{vault_id}/holds/{hold_id}",
      summary: "Release a legal hold the operator placed",
      description: "Only a hold the operator placed (one an organization placed: 403 `not_hold_owner`). Every party receives `vault.hold_released`. Already released: 409 `hold_released`; unknown: 404.",
      request: { params: HoldParams },
      responses: { 200: jsonContent(dataOf(ReleasedHoldSchema), "The hold, released") },
    },
    [403, 404, 409],
  ),
);

export const releaseHandler: AppRouteHandler<typeof releaseRoute> = async (c) => {
  const { vault_id, hold_id } = c.req.valid("param");
  return c.json({ data: await releaseHold(c.var.ctx, { vaultId: vault_id, holdId: hold_id, by: { operator: true } }) }, 200);
};
