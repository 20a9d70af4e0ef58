import type { OrgContext } from "../../lib/context";
import { closeRecord } from "./close-record";
import { controlView, type ControlView } from "./view";

/**
 * POST /partner/vault/:vault_id/paid-off (docs/control.md): the controller records that the obligation is
 * paid off; control closes for good (`paid_off`, with `closed_at` and the reference as `closed_note`).
 * Answers the record as it is now.
 */
export async function payOff(ctx: OrgContext, input: { vaultId: string; reference: string | null; body?: unknown; signatureHeader: string | undefined }): Promise<ControlView> {
  const state = await closeRecord(ctx, {
    vaultId: input.vaultId,
    status: "paid_off",
    note: input.reference,
    detail: { reference: input.reference },
    body: input.body ?? (input.reference === null ? {} : { reference: input.reference }),
    signatureHeader: input.signatureHeader,
  });
  return controlView(ctx, state);
}
