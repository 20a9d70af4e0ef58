import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent, mergeErrorCodes } from "../../../../lib/openapi";
import { ControlSignatureHeaders } from "../../../../services/control/key-schema";
import { paperOut } from "../../../../services/control/paper-out";
import { VAULT_RECORD_EXAMPLE, VaultRecordSchema } from "../../../../services/control/record-schema";
import { PaperOutBody, VaultParams } from "../../../../services/control/schema";
import { VAULT_URL_EXAMPLE, VaultUrlSchema } from "../../../../services/vault/schema";
import { partnerRoute } from "../../common";
import { INTEGRITY_ERRORS } from "../../../../services/vault/download";
import { CONTROL_SIGNATURE_ERRORS } from "../../../../services/control/signature";
import { TRANSFER_PENDING_ERRORS } from "../../../../services/control/offer-transfer";
import { CONTROLLER_ERRORS } from "../../../../services/control/state";

const PaperOutResultSchema = VaultRecordSchema.extend({
  paper_copy: VaultUrlSchema.openapi({ description: "Signed URL (300 s) of the copy stamped CONVERTED TO PAPER on every page and in its metadata" }),
}).openapi("VaultPaperOut", {
  example: {
    ...VAULT_RECORD_EXAMPLE,
    status: "paper_out",
    pending_transfer: null,
    paper_copy: VAULT_URL_EXAMPLE,
  },
});

export const route = createRoute(
  partnerRoute(
    "vault:control",
    {
      method: "post",
      operationId: "paperOutVaultRecord",
      [ERROR_CODES_KEY]: mergeErrorCodes(CONTROL_SIGNATURE_ERRORS, CONTROLLER_ERRORS, TRANSFER_PENDING_ERRORS, INTEGRITY_ERRORS),
      path: "/partner/vault/{vault_id}/paper-out",
      summary: "Convert the record to paper (terminal)",
      description:
        "By the controller: the electronic record is no longer authoritative and control closes for good (`status: paper_out`, the `reason` kept); afterwards every control operation answers 409 `control_closed`. Answers with `paper_copy`, a signed URL of a copy of the authoritative PDF stamped CONVERTED TO PAPER on every page and in its metadata (print it as the paper original). The controller receives `vault.paper_out`; a new certificate version is issued. Control-Signature payload: `{ vault_id, action: \"paper_out\", control_seq, body_sha256, iat }`. Not a party: 404; not the controller: 403 `not_controller`; a transfer pending: 409 `transfer_pending`; already closed: 409 `control_closed`; the authoritative copy's bytes no longer match its hash: 409 `integrity_check_failed`.",
      request: { params: VaultParams, headers: ControlSignatureHeaders, body: jsonBody(PaperOutBody) },
      responses: { 200: jsonContent(dataOf(PaperOutResultSchema), "The record as it is now, with the paper copy's URL") },
    },
    [400, 404, 409, 415, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const view = await paperOut(c.var.ctx, {
    vaultId: c.req.valid("param").vault_id,
    reason: c.req.valid("json").reason,
    body: await c.req.json(),
    signatureHeader: c.req.valid("header")["control-signature"],
  });
  return c.json({ data: view }, 200);
};
