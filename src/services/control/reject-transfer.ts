import type { OrgContext } from "../../lib/context";
import { answerTransfer } from "./answer-transfer";
import type { TransferView } from "./view";

/** POST /partner/vault/transfers/:transfer_id/reject (docs/control.md), by the organization it is offered to: control stays where it is. See answerTransfer. */
export function rejectTransfer(ctx: OrgContext, input: { transferId: string; signatureHeader: string | undefined }): Promise<TransferView> {
  return answerTransfer(ctx, { ...input, answer: "reject" });
}
