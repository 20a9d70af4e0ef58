import type { OrgContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { isShardTagged, shardOf } from "../../lib/shards";
import { commitWithBatchAudit } from "./batch-chain";
import { batchMasterTemplateArchive } from "../templates/repository";
import { batchSoftDelete, getBatch } from "./repository";
import { assertEditable, batchDetail } from "./serialize";

/**
 * DELETE /bulk-send/:id: only while draft or ready (409 afterwards). Soft delete: the batch is gone
 * from every route (404), and its master template is archived (soft-deleted) with it, in one batch.
 */
export async function deleteBatch(ctx: OrgContext, input: { batchId: string }) {
  const { db, orgId } = ctx;
  const batch = await getBatch(db, orgId, input.batchId);
  assertEditable(batch, "delete");
  const at = nowIso();
  // the master is archived with the batch when it is the batch's builder copy, on the batch's shard
  // (an organization template named by PATCH master_template_id is global, and is not archived anyway)
  const master = batch.master_template_id;
  const archive = master !== null && isShardTagged(master) === isShardTagged(batch.id) && shardOf(master) === shardOf(batch.id);
  const [guard] = await commitWithBatchAudit(
    db,
    { orgId, batchId: batch.id, action: "bulk_batch.deleted", actor: ctx.actor, data: { batch_id: batch.id, master_template_id: batch.master_template_id }, at },
    [
      batchSoftDelete(db, batch.id, at),
      ...(archive ? [batchMasterTemplateArchive(db, { templateId: master, orgId, batchId: batch.id, at })] : []),
    ],
    { guarded: true },
  );
  if (guard?.meta.changes !== 1) throw conflict("The batch is no longer draft or ready: it cannot be deleted", { batch_id: batch.id });
  return { ...batchDetail(batch), deleted_at: at };
}
