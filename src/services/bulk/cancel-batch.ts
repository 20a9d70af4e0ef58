import { bulkBatchFor } from "../../../durable-objects/bulk-batch";
import type { OrgContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithBatchAudit } from "./batch-chain";
import { batchCancel, getBatch } from "./repository";
import { batchDetail } from "./serialize";

/**
 * POST /bulk-send/:id/cancel: `running` -> `cancelled`. In one D1 batch the batch's status changes and
 * every `pending` item becomes `cancelled` (with its counter), so no chunk can claim an item after it;
 * items already claimed (`running`) finish, and envelopes sent stay sent. The workflow reads the status
 * before each item and stops; the object is only woken to settle sooner. 409 unless running (a cancel
 * that lost the race with the last chunk finds the batch completed).
 */
export async function cancelBatch(ctx: OrgContext, input: { batchId: string }) {
  const { db, orgId, env } = ctx;
  const batch = await getBatch(db, orgId, input.batchId);
  if (batch.status !== "running") throw conflict(`Only a running batch can be cancelled; this one is ${batch.status}`, { status: batch.status });
  const at = nowIso();
  const [guard] = await commitWithBatchAudit(
    db,
    { orgId, batchId: batch.id, action: "bulk_batch.cancelled", actor: ctx.actor, data: { batch_id: batch.id }, at },
    batchCancel(db, batch.id, at),
    { guarded: true },
  );
  if (guard?.meta.changes !== 1) {
    const now = await getBatch(db, orgId, batch.id);
    throw conflict(`Only a running batch can be cancelled; this one is ${now.status}`, { status: now.status });
  }
  if (env.BULK_BATCH) {
    try {
      await bulkBatchFor({ BULK_BATCH: env.BULK_BATCH }, batch.id).wake();
    } catch (err) {
      // the cancel is committed; the workflow's next alarm reads it
      console.warn(JSON.stringify({ level: "warn", bulk_batch: batch.id, wake_failed: String(err) }));
    }
  }
  return batchDetail(await getBatch(db, orgId, batch.id));
}
