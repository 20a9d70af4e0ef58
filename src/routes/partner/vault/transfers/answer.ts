import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonContent, mergeErrorCodes } from "../../../../lib/openapi";
import { acceptTransfer } from "../../../../services/control/accept-transfer";
import { cancelTransfer } from "../../../../services/control/cancel-transfer";
import { ControlSignatureHeaders } from "../../../../services/control/key-schema";
import { rejectTransfer } from "../../../../services/control/reject-transfer";
import { TransferParams, TransferSchema } from "../../../../services/control/schema";
import { partnerRoute } from "../../common";
import { ANSWER_TRANSFER_ERRORS } from "../../../../services/control/answer-transfer";
import { CONTROL_CLOSED_ERRORS } from "../../../../services/control/state";
import { CONTROL_SIGNATURE_ERRORS } from "../../../../services/control/signature";

const COMMON =
  "Anyone but the two organizations of the transfer: 404. No longer pending: 409 `transfer_not_pending` to either of them (`details.status` says what it became), before any 403; a pending transfer past its `expires_at` is settled as `expired` first (`vault.transfer_expired` to both) and answered 409 the same way. Control-Signature payload: `{ vault_id, action, transfer_id, control_seq, body_sha256, iat }` (`body_sha256` of `{}`). Answers the transfer as it is now.";

const answerRoute = (answer: "accept" | "reject" | "cancel", operationId: string, summary: string, description: string) =>
  createRoute(
    partnerRoute(
      "vault:control",
      {
        method: "post",
        operationId,
        [ERROR_CODES_KEY]: mergeErrorCodes(CONTROL_SIGNATURE_ERRORS, ANSWER_TRANSFER_ERRORS, CONTROL_CLOSED_ERRORS),
        path: `/partner/vault/transfers/{transfer_id}/${answer}`,
        summary,
        description: `${description} ${COMMON}`,
        request: { params: TransferParams, headers: ControlSignatureHeaders },
        responses: { 200: jsonContent(dataOf(TransferSchema), "The transfer as it is now") },
      },
      [404, 409, 415],
    ),
  );

export const acceptRoute = answerRoute(
  "accept",
  "acceptVaultTransfer",
  "Accept a transfer of control",
  "By the organization the transfer is offered to. An `assignment` makes it the controller (any pledgor cleared); a `pledge` makes it the controller and the offering organization the pledgor. Commits with a new certificate version naming the controller; both organizations receive `vault.control_transferred`. The offering organization: 403 `not_receiver`. Control-Signature `action`: `accept`.",
);
export const acceptHandler: OrgRouteHandler<typeof acceptRoute> = async (c) =>
  c.json({ data: await acceptTransfer(c.var.ctx, { transferId: c.req.valid("param").transfer_id, signatureHeader: c.req.valid("header")["control-signature"] }) }, 200);

export const rejectRoute = answerRoute(
  "reject",
  "rejectVaultTransfer",
  "Reject a transfer of control",
  "By the organization the transfer is offered to: control stays where it is; both organizations receive `vault.transfer_rejected`. The offering organization: 403 `not_receiver` (it cancels instead). Control-Signature `action`: `reject`.",
);
export const rejectHandler: OrgRouteHandler<typeof rejectRoute> = async (c) =>
  c.json({ data: await rejectTransfer(c.var.ctx, { transferId: c.req.valid("param").transfer_id, signatureHeader: c.req.valid("header")["control-signature"] }) }, 200);

export const cancelRoute = answerRoute(
  "cancel",
  "cancelVaultTransfer",
  "Cancel a transfer of control",
  "By the organization that offered it: control stays where it is; both organizations receive `vault.transfer_cancelled`. The receiving organization: 403 `not_sender` (it rejects instead). Control-Signature `action`: `cancel`.",
);
export const cancelHandler: OrgRouteHandler<typeof cancelRoute> = async (c) =>
  c.json({ data: await cancelTransfer(c.var.ctx, { transferId: c.req.valid("param").transfer_id, signatureHeader: c.req.valid("header")["control-signature"] }) }, 200);
