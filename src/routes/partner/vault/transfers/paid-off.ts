import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent, mergeErrorCodes } from "../../../../lib/openapi";
import { ControlSignatureHeaders } from "../../../../services/control/key-schema";
import { payOff } from "../../../../services/control/pay-off";
import { VaultRecordSchema } from "../../../../services/control/record-schema";
import { PaidOffBody, VaultParams } from "../../../../services/control/schema";
import { partnerRoute } from "../../common";
import { CONTROL_SIGNATURE_ERRORS } from "../../../../services/control/signature";
import { TRANSFER_PENDING_ERRORS } from "../../../../services/control/offer-transfer";
import { CONTROLLER_ERRORS } from "../../../../services/control/state";

export const route = createRoute(
  partnerRoute(
    "vault:control",
    {
      method: "post",
      operationId: "payOffVaultRecord",
      [ERROR_CODES_KEY]: mergeErrorCodes(CONTROL_SIGNATURE_ERRORS, CONTROLLER_ERRORS, TRANSFER_PENDING_ERRORS),
      path: "/partner/vault/{vault_id}/paid-off",
      summary: "Record the obligation as paid off (terminal)",
      description:
        "By the controller: control closes for good (`status: paid_off`); afterwards every control operation answers 409 `control_closed`. The controller receives `vault.paid_off`; a new certificate version is issued. Send `{}` or a `reference`. Control-Signature payload: `{ vault_id, action: \"paid_off\", control_seq, body_sha256, iat }`. Not a party: 404; not the controller: 403 `not_controller`; a transfer pending: 409 `transfer_pending` (answer or cancel it first); already closed: 409 `control_closed`. Answers the record.",
      request: { params: VaultParams, headers: ControlSignatureHeaders, body: jsonBody(PaidOffBody) },
      responses: { 200: jsonContent(dataOf(VaultRecordSchema), "The record as it is now") },
    },
    [400, 404, 409, 415],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const view = await payOff(c.var.ctx, {
    vaultId: c.req.valid("param").vault_id,
    reference: c.req.valid("json").reference ?? null,
    body: await c.req.json(),
    signatureHeader: c.req.valid("header")["control-signature"],
  });
  return c.json({ data: view }, 200);
};
