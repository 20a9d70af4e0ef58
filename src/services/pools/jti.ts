import type { RequestContext } from "../../lib/context";
import { controlJtiInsert, isControlJtiConflict } from "../control/repository";
import { usedJti } from "../control/signature";

/**
 * Spends a pool action's `jti` (docs/control.md "Pools"), once the action is decided and before it is
 * written: the pool lives on a shard and the jti in the global database, so they cannot share a batch.
 * A concurrent request carrying the same signature loses here (403 `control_signature_invalid`). A crash
 * between this and the action spends a jti for nothing: the signer signs again over a new one.
 */
export async function spendJti(ctx: RequestContext & { orgId: string }, jti: string, at: string): Promise<void> {
  try {
    await controlJtiInsert(ctx.global, { orgId: ctx.orgId, jti, at }, { sql: "1", params: [] }).run();
  } catch (err) {
    if (isControlJtiConflict(err)) throw usedJti();
    throw err;
  }
}
