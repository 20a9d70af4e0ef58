import type { OrgContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
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
  const [guard] = await commitWithOrgAudit(
    db,
    { orgId, action: "bulk_batch.deleted", actor: ctx.actor, data: { batch_id: batch.id, master_template_id: batch.master_template_id }, at },
    [
      batchSoftDelete(db, batch.id, at),
      ...(batch.master_template_id ? [batchMasterTemplateArchive(db, { templateId: batch.master_template_id, orgId, batchId: batch.id, at })] : []),
    ],
    { guarded: true },
  );
  if (guard?.meta.changes !== 1) throw conflict("The batch is no longer draft or ready: it cannot be deleted", { batch_id: batch.id });
  return { ...batchDetail(batch), deleted_at: at };
}
