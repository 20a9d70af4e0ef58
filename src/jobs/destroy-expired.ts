import type { RequestContext } from "../lib/context";
import { ApiError } from "../lib/errors";
import { listAutoDestroyOrgIds } from "../services/organizations/repository";
import { destroyRecord } from "../services/retention/destroy-record";
import { deletePending } from "../services/retention/destroyed-files";
import { listPendingDeletions } from "../services/vault/repository";
import { listDestroyableRecords } from "../services/vault/repository";

/** Records destroyed per run and shard: the rest wait for the next minute. */
export const DESTROY_EXPIRED_BATCH = 20;

/** Destroyed records whose deletions are retried per run and shard. */
export const RETRY_DELETIONS_BATCH = 20;

/**
 * Every minute, per shard (docs/control.md "Retention"): closed records whose `retain_until` has passed, controlled
 * by an organization whose policy says `auto_destroy`, and under no legal hold, are destroyed, each its own step
 * (destroyRecord, judged as of the cron's time). A record whose hold or state changed meanwhile is refused by the
 * step itself (409) and left alone. First, the objects of earlier destructions whose deletion failed are deleted again
 * (any destroyed record, whoever destroyed it), until none is pending.
 */
export async function destroyExpired(ctx: RequestContext, now = new Date()): Promise<{ destroyed: number; retried: number }> {
  let retried = 0;
  for (const pending of await listPendingDeletions(ctx.db, RETRY_DELETIONS_BATCH)) {
    if (await deletePending(ctx.db, ctx.env.DOCS, pending.id, pending.keys)) retried += 1;
  }
  const controllers = await listAutoDestroyOrgIds(ctx.global);
  if (controllers.length === 0) return { destroyed: 0, retried };
  const due = await listDestroyableRecords(ctx.db, { at: now.toISOString(), controllerOrgIds: controllers, limit: DESTROY_EXPIRED_BATCH });
  let destroyed = 0;
  for (const record of due) {
    try {
      await destroyRecord(ctx, { vaultId: record.id, by: { cron: true }, asOf: now });
      destroyed += 1;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  return { destroyed, retried };
}
