import type { OrgContext } from "../../lib/context";
import { answerTransfer } from "./answer-transfer";
import type { TransferView } from "./view";

/** POST /partner/vault/transfers/:transfer_id/accept (docs/control.md), by the organization it is offered to: an assignment makes it the controller (the pledgor cleared); a pledge makes it the controller and the offering organization the pledgor. See answerTransfer. */
export function acceptTransfer(ctx: OrgContext, input: { transferId: string; signatureHeader: string | undefined }): Promise<TransferView> {
  return answerTransfer(ctx, { ...input, answer: "accept" });
}
