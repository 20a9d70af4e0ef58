import { onShardOf, type OrgContext } from "../../lib/context";
import { ApiError, conflict, type ErrorCodesByStatus, mergeErrorCodes, notFound } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import type { ControlChange } from "../vault/repository";
import { commitControl, type ControlStep } from "./commit-control";
import { expireTransfer, isLapsed, notPending, TRANSFER_NOT_PENDING_ERRORS } from "./expire-transfer";
import { getTransfer, type TransferRow } from "./repository";
import { bodySha256, verifyRecordSignature } from "./signature";
import { assertActive, readControl } from "./state";
import { transferView, type TransferView } from "./view";

/** 403 codes of an answer by the wrong party of the transfer. */
export const NOT_RECEIVER = "not_receiver";
export const NOT_SENDER = "not_sender";
/** 409: the transfer is one of a pool's holds, answered with the pool. */
export const TRANSFER_IN_POOL = "transfer_in_pool";

export type TransferAnswer = "accept" | "reject" | "cancel";

const SETTLED = { accept: "accepted", reject: "rejected", cancel: "cancelled" } as const;
const ACTION = { accept: "vault.control_transferred", reject: "vault.transfer_rejected", cancel: "vault.transfer_cancelled" } as const;

/** Which of the transfer's two organizations may give an answer: the receiving one accepts or rejects, the sending one cancels. */
function assertMayAnswer(transfer: TransferRow, orgId: string, answer: TransferAnswer): void {
  if (answer === "cancel" && transfer.from_org_id !== orgId) {
    throw new ApiError(403, "Only the organization that offered the transfer may cancel it; the receiving organization rejects it", undefined, NOT_SENDER);
  }
  if (answer !== "cancel" && transfer.to_org_id !== orgId) {
    throw new ApiError(403, `Only the organization the transfer is offered to may ${answer} it; the offering organization cancels it`, undefined, NOT_RECEIVER);
  }
}

/** The record's control columns as an accepted transfer leaves them (docs/control.md). */
export function acceptedChange(transfer: Pick<TransferRow, "kind" | "from_org_id" | "to_org_id">): ControlChange {
  return transfer.kind === "pledge"
    ? { controller_org_id: transfer.to_org_id, pledgor_org_id: transfer.from_org_id, transferAccepted: true }
    : { controller_org_id: transfer.to_org_id, pledgor_org_id: null, transferAccepted: true };
}

/**
 * Accepts, rejects or cancels a pending transfer (docs/control.md). Anyone but its two organizations: 404;
 * no longer pending: 409 `transfer_not_pending` (to either of the two); the wrong one of the two: 403
 * (`not_receiver` / `not_sender`). A pending transfer past its `expires_at` is settled as `expired` first (its
 * own step, by the service) and then answered 409. The Control-Signature (payload `{ vault_id, action,
 * transfer_id, control_seq, body_sha256, iat }`, the body `{}`) is checked before anything commits,
 * and its `control_seq` again by the commit. Answers the transfer as it is now.
 */
export async function answerTransfer(
  caller: OrgContext,
  input: { transferId: string; answer: TransferAnswer; signatureHeader: string | undefined },
): Promise<TransferView> {
  // the transfer (and its record) on the shard its id names: the record's (docs/decisions/shards.md 4)
  const ctx = onShardOf(caller, input.transferId);
  const transfer = await getTransfer(ctx.db, input.transferId);
  if (!transfer) throw notFound("Transfer");
  if (transfer.from_org_id !== ctx.orgId && transfer.to_org_id !== ctx.orgId) throw notFound("Transfer");
  // A pool's hold is answered as the pool, all its records together (docs/control.md "Pools").
  if (transfer.pool_id) {
    throw conflict("This transfer holds a record for a pool: accept, reject or cancel the pool", { pool_id: transfer.pool_id }, TRANSFER_IN_POOL);
  }
  // Either party may learn that it is settled (both list it): that answer comes before whose turn it was.
  if (transfer.status !== "pending") throw notPending(transfer);
  if (isLapsed(transfer, nowIso())) {
    await expireTransfer(ctx, transfer);
    throw notPending((await getTransfer(ctx.db, transfer.id)) ?? transfer);
  }
  assertMayAnswer(transfer, ctx.orgId, input.answer);
  const { controlSeq } = await readControl(ctx.db, transfer.vault_id);
  const signature = await verifyRecordSignature(ctx.global, {
    orgId: ctx.orgId,
    header: input.signatureHeader,
    claim: { vault_id: transfer.vault_id, action: input.answer, transfer_id: transfer.id, body_sha256: await bodySha256({}) },
    controlSeq,
  });
  return commitControl(ctx, transfer.vault_id, async (state, at) => {
    const pending = state.pending;
    if (!pending || pending.id !== transfer.id) throw notPending((await getTransfer(ctx.db, transfer.id)) ?? transfer);
    // Lapsed between the check and this attempt: the expiry (cron or the next answer) settles it.
    if (isLapsed(pending, at)) throw notPending({ ...pending, status: "expired" });
    if (input.answer === "accept") assertActive(state);
    const step: ControlStep = {
      action: ACTION[input.answer],
      fromOrgId: pending.from_org_id,
      toOrgId: pending.to_org_id,
      transferId: pending.id,
      transfer: { settle: { id: pending.id, status: SETTLED[input.answer] } },
      detail: { kind: pending.kind },
      signature,
      ...(input.answer === "accept" ? { change: acceptedChange(pending) } : {}),
    };
    return { step, result: () => transferView({ ...pending, status: SETTLED[input.answer], settled_at: at }) };
  });
}

/** What answering a transfer answers: the wrong side of it, a transfer a pool carries, one no longer pending. */
export const ANSWER_TRANSFER_ERRORS: ErrorCodesByStatus = mergeErrorCodes({ 403: [NOT_RECEIVER, NOT_SENDER], 409: [TRANSFER_IN_POOL] }, TRANSFER_NOT_PENDING_ERRORS);
