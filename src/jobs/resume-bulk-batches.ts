import { bulkBatchFor } from "../../durable-objects/bulk-batch";
import type { RequestContext } from "../lib/context";
import { listStaleBatches } from "../services/bulk/repository";

/** A running batch whose counters have not moved for this long is handed to its workflow again. */
export const STALE_BATCH_MS = 5 * 60_000;
const PER_RUN = 20;

/**
 * Every minute, once per shard (`ctx.db`, jobs/minute.ts): the safety net under bulk send's workflow. A batch is `running` in D1 from the
 * submit's commit; its Durable Object then carries it, chunk by chunk, behind a watchdog alarm. If the
 * Worker died between that commit and starting the object (or the object lost its run), the batch
 * would stay `running` with nobody sending it. A running (or cancelled, not yet settled) batch that
 * has not changed for 5 minutes is started again: `start` is idempotent, so an object that still holds
 * the run only runs its next chunk sooner, and exactly-once per client rests on the items, not on
 * who drives them. A batch is on one shard (its id's), so each shard's run resumes its own batches.
 */
export async function resumeBulkBatches(ctx: RequestContext, now: Date): Promise<{ resumed: string[] }> {
  const namespace = ctx.env.BULK_BATCH;
  if (!namespace) return { resumed: [] }; // bulk send is not configured here: nothing was ever submitted
  const cutoff = new Date(now.getTime() - STALE_BATCH_MS).toISOString();
  const results = await listStaleBatches(ctx.db, cutoff, PER_RUN);
  for (const batch of results) await bulkBatchFor({ BULK_BATCH: namespace }, batch.id).start({ batchId: batch.id, orgId: batch.org_id });
  return { resumed: results.map((b) => b.id) };
}
