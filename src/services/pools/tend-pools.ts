import type { RequestContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import { startPoolMove } from "./answer-pool";
import { releasePool } from "./offer-pool";
import { listPoolsToTend } from "./repository";

/** Pools of each kind looked after per shard per minute: the rest wait for the next. */
export const TEND_POOLS_BATCH = 20;
/** An offer still `preparing` after this long stopped halfway (a crash): it is cancelled and its holds released. */
export const PREPARING_STALE_MS = 15 * 60 * 1000;

/**
 * Every minute, on each shard (docs/control.md "Pools"): a pending pool past its `expires_at` becomes
 * `expired`; a pool rejected, cancelled or expired whose holds were not all released (a crash between
 * its steps) has them released; an offer left `preparing` is cancelled; an accepted pool whose records
 * are not all moved has its Durable Object started again (idempotent). Each is idempotent, so a pool
 * answered at the same moment keeps its answer.
 */
export async function tendPools(ctx: RequestContext, now = new Date()): Promise<{ expired: number; released: number; resumed: number }> {
  const at = now.toISOString();
  const pools = await listPoolsToTend(ctx.db, { now: at, staleBefore: new Date(now.getTime() - PREPARING_STALE_MS).toISOString(), limit: TEND_POOLS_BATCH });
  const out = { expired: 0, released: 0, resumed: 0 };
  for (const pool of pools) {
    try {
      if (pool.status === "pending") {
        if (await releasePool(ctx, pool, "expired", { from: "pending", at })) out.expired += 1;
      } else if (pool.status === "preparing") {
        if (await releasePool(ctx, pool, "cancelled", { from: "preparing", at })) out.released += 1;
      } else if (pool.status === "accepted") {
        await startPoolMove(ctx, pool);
        out.resumed += 1;
      } else {
        await releasePool(ctx, pool, pool.status as "rejected" | "cancelled" | "expired", { from: null, at });
        out.released += 1;
      }
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  return out;
}
