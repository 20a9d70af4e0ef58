import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent, mergeErrorCodes } from "../../../../lib/openapi";
import { ControlSignatureHeaders } from "../../../../services/control/key-schema";
import { OFFER_TRANSFER_ERRORS, offerTransfer } from "../../../../services/control/offer-transfer";
import { OfferTransferBody, TransferSchema, VaultParams } from "../../../../services/control/schema";
import { partnerRoute } from "../../common";
import { CONTROL_SIGNATURE_ERRORS } from "../../../../services/control/signature";
import { CONTROLLER_ERRORS } from "../../../../services/control/state";

export const route = createRoute(
  partnerRoute(
    "vault:control",
    {
      method: "post",
      operationId: "offerVaultTransfer",
      [ERROR_CODES_KEY]: mergeErrorCodes(CONTROL_SIGNATURE_ERRORS, CONTROLLER_ERRORS, OFFER_TRANSFER_ERRORS),
      path: "/partner/vault/{vault_id}/transfers",
      summary: "Offer a transfer of control (assignment or pledge)",
      description:
        "By the controller of the authoritative copy: offers control to `to_org_id`, as an `assignment` (it becomes the controller) or a `pledge` (it becomes the controller and the caller the pledgor, to whom control returns on release). The transfer is `pending` until the receiving organization accepts or rejects it, the caller cancels it, or it expires 7 days later; both organizations receive `vault.transfer_requested`. Control-Signature payload: `{ vault_id, action: \"transfer\", control_seq, body_sha256, iat }` (the body, `kind`, `to_org_id` and `reference`, is covered by `body_sha256`). Not a party to the record: 404. A party but not the controller: 403 `not_controller`. A transfer already pending: 409 `transfer_pending` (one of two racing offers gets it). The record paid off or papered out: 409 `control_closed`. A pledge of a record held under a pledge: 409 `already_pledged`. `to_org_id` unknown or the caller: 422.",
      request: { params: VaultParams, headers: ControlSignatureHeaders, body: jsonBody(OfferTransferBody) },
      responses: { 201: jsonContent(dataOf(TransferSchema), "The pending transfer") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  const transfer = await offerTransfer(c.var.ctx, {
    vaultId: c.req.valid("param").vault_id,
    kind: body.kind,
    toOrgId: body.to_org_id,
    reference: body.reference ?? null,
    body: await c.req.json(),
    signatureHeader: c.req.valid("header")["control-signature"],
  });
  return c.json({ data: transfer }, 201);
};
