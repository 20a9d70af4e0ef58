import type { RequestContext } from "../lib/context";
import { ApiError } from "../lib/errors";
import { listLapsedTransfers } from "../services/control/repository";
import { expireTransfer } from "../services/control/expire-transfer";

/** Transfers expired per run: the rest wait for the next minute. */
export const EXPIRE_TRANSFERS_BATCH = 50;

/**
 * Every minute (docs/control.md): pending transfers of control past their `expires_at` become `expired`,
 * each its own step (`vault.transfer_expired` on the envelope's chain by the service, the event to both
 * organizations). Bounded per run. One answered at the same moment keeps its answer (the step finds
 * nothing to expire); one whose record is busy is left for the next run.
 */
export async function expireTransfers(ctx: RequestContext, now = new Date()): Promise<{ expired: number }> {
  const lapsed = await listLapsedTransfers(ctx.db, now.toISOString(), EXPIRE_TRANSFERS_BATCH);
  let expired = 0;
  for (const transfer of lapsed) {
    try {
      if (await expireTransfer(ctx, transfer, now)) expired += 1;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  return { expired };
}
