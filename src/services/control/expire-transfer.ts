import { SYSTEM_ACTOR } from "../../lib/actor";
import type { RequestContext } from "../../lib/context";
import { conflict, type ErrorCodesByStatus } from "../../lib/errors";
import { commitControl } from "./commit-control";
import type { TransferRow } from "./repository";
import { transferView, type TransferView } from "./view";

/** 409 `transfer_not_pending`: the transfer was already accepted, rejected, cancelled or expired. */
export const TRANSFER_NOT_PENDING = "transfer_not_pending";

export const notPending = (transfer: Pick<TransferRow, "id" | "status">) =>
  conflict(`This transfer is no longer pending: it is ${transfer.status}`, { transfer_id: transfer.id, status: transfer.status }, TRANSFER_NOT_PENDING);

/** Whether a pending transfer's time is up at `at` (ISO). */
export const isLapsed = (transfer: Pick<TransferRow, "status" | "expires_at">, at: string) => transfer.status === "pending" && transfer.expires_at <= at;

/**
 * Settles a pending transfer past its `expires_at` as `expired` (docs/control.md): the chain entry
 * `vault.transfer_expired` by the service (system actor, no Control-Signature, no acting organization)
 * and the event to both organizations, in one batch through commitControl. Used by the expiry cron and
 * by an answer that finds the transfer lapsed. Null when there is nothing to expire any more (it was
 * settled meanwhile, or is not yet due at `asOf` (default: now)): the caller reads the transfer again.
 */
export async function expireTransfer(ctx: RequestContext, transfer: TransferRow, asOf?: Date): Promise<TransferView | null> {
  const system: RequestContext = { ...ctx, actor: SYSTEM_ACTOR };
  try {
    return await commitControl(system, transfer.vault_id, async (state, at) => {
      const pending = state.pending;
      if (!pending || pending.id !== transfer.id || !isLapsed(pending, asOf && asOf.toISOString() > at ? asOf.toISOString() : at)) throw NOTHING_TO_EXPIRE;
      return {
        step: {
          action: "vault.transfer_expired",
          fromOrgId: pending.from_org_id,
          toOrgId: pending.to_org_id,
          transferId: pending.id,
          transfer: { settle: { id: pending.id, status: "expired" } },
          detail: { kind: pending.kind, expires_at: pending.expires_at },
          signature: null,
        },
        result: () => transferView({ ...pending, status: "expired", settled_at: at }),
      };
    });
  } catch (err) {
    if (err === NOTHING_TO_EXPIRE) return null;
    throw err;
  }
}

const NOTHING_TO_EXPIRE = new Error("nothing to expire");

export const TRANSFER_NOT_PENDING_ERRORS: ErrorCodesByStatus = { 409: [TRANSFER_NOT_PENDING] };
