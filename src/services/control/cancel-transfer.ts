import type { OrgContext } from "../../lib/context";
import { answerTransfer } from "./answer-transfer";
import type { TransferView } from "./view";

/** POST /partner/vault/transfers/:transfer_id/cancel (docs/control.md), by the organization that offered it: control stays where it is. See answerTransfer. */
export function cancelTransfer(ctx: OrgContext, input: { transferId: string; signatureHeader: string | undefined }): Promise<TransferView> {
  return answerTransfer(ctx, { ...input, answer: "cancel" });
}
