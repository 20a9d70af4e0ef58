import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonContent, mergeErrorCodes } from "../../../../lib/openapi";
import { ControlSignatureHeaders } from "../../../../services/control/key-schema";
import { VaultRecordSchema } from "../../../../services/control/record-schema";
import { RELEASE_PLEDGE_ERRORS, releasePledge } from "../../../../services/control/release-pledge";
import { VaultParams } from "../../../../services/control/schema";
import { partnerRoute } from "../../common";
import { CONTROL_SIGNATURE_ERRORS } from "../../../../services/control/signature";
import { TRANSFER_PENDING_ERRORS } from "../../../../services/control/offer-transfer";
import { CONTROLLER_ERRORS } from "../../../../services/control/state";

export const route = createRoute(
  partnerRoute(
    "vault:control",
    {
      method: "post",
      operationId: "releaseVaultPledge",
      [ERROR_CODES_KEY]: mergeErrorCodes(CONTROL_SIGNATURE_ERRORS, CONTROLLER_ERRORS, TRANSFER_PENDING_ERRORS, RELEASE_PLEDGE_ERRORS),
      path: "/partner/vault/{vault_id}/release-pledge",
      summary: "Release a pledge: control returns to the pledgor",
      description:
        "By the controller while a pledgor is set: the pledgor becomes the controller again (no acceptance: control returns whence it came); both receive `vault.pledge_released`, and a new certificate version names the controller. Control-Signature payload: `{ vault_id, action: \"release_pledge\", control_seq, body_sha256, iat }` (`body_sha256` of `{}`). Not a party: 404; not the controller: 403 `not_controller`; not pledged: 409 `no_pledge`; a transfer pending: 409 `transfer_pending` (answer or cancel it first); closed: 409 `control_closed`. Answers the record.",
      request: { params: VaultParams, headers: ControlSignatureHeaders },
      responses: { 200: jsonContent(dataOf(VaultRecordSchema), "The record as it is now") },
    },
    [404, 409, 415],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const view = await releasePledge(c.var.ctx, { vaultId: c.req.valid("param").vault_id, signatureHeader: c.req.valid("header")["control-signature"] });
  return c.json({ data: view }, 200);
};
