import { inOrg, onShardOf, type OrgContext, type RequestContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import type { BulkItemStatus } from "../../db/schema";
import { findBatchOrg, getBatch, listItems } from "./repository";
import { countsOf, itemDetail } from "./serialize";
import { PROGRESS_PAGE_DEFAULT } from "./schema";

/**
 * GET /bulk-send/:id: the batch's own counters (kept with every item change, so a poll every 2 s by
 * many viewers reads one row, never a count over 1,000 items) and one page of its items in list order.
 */
export async function getBatchProgress(ctx: OrgContext, input: { batchId: string; page?: number; limit?: number; status?: BulkItemStatus }) {
  const { db, orgId } = ctx;
  const limit = input.limit ?? PROGRESS_PAGE_DEFAULT;
  const page = input.page ?? 1;
  const offset = (page - 1) * limit;
  const batch = await getBatch(db, orgId, input.batchId);
  const results = await listItems(db, batch.id, { status: input.status, limit, offset });
  const counts = countsOf(batch);
  return {
    data: {
      batch: { batch_id: batch.id, status: batch.status, total_count: batch.total_count, sent_count: batch.sent_count, failed_count: batch.failed_count, skipped_count: batch.skipped_count },
      counts,
      items: results.map(itemDetail),
    },
    meta: { page, limit, total: input.status ? counts[input.status] : batch.total_count },
  };
}

/** GET /operator/bulk-send/:id: the same progress for the operator, whatever the batch's organization. */
export async function getBatchProgressAsOperator(ctx: RequestContext, input: { batchId: string; page?: number; limit?: number; status?: BulkItemStatus }) {
  const onBatch = onShardOf(ctx, input.batchId); // the batch's shard, named by its id
  const row = await findBatchOrg(onBatch.db, input.batchId);
  if (!row) throw notFound("Bulk-send batch");
  return getBatchProgress(inOrg(onBatch, row.org_id), input);
}
