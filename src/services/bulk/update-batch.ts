import type { OrgContext } from "../../lib/context";
import { conflict, unprocessable } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithBatchAudit } from "./batch-chain";
import { findTemplate, templateDb } from "../templates/repository";
import { instanceFor } from "../templates/schema";
import { batchUpdate, getBatch } from "./repository";
import { assertEditable, batchDetail } from "./serialize";
import type { UpdateBatchInput } from "./schema";

/**
 * PATCH /bulk-send/:id: only while `draft` or `ready` (409 afterwards). `kba_required` only for a
 * `new` document and only before the editor was opened (then the master template fixes it: 409, like
 * an immutable template flag). `master_template_id` must be a live template of the organization
 * with the batch's KBA (409 `kba_immutable` otherwise): only `kba_required`, where allowed, changes it.
 */
export async function updateBatch(ctx: OrgContext, input: { batchId: string; body: UpdateBatchInput }) {
  const { db, orgId } = ctx;
  const { body } = input;
  const batch = await getBatch(db, orgId, input.batchId);
  assertEditable(batch, "change");
  const sets: [column: string, value: unknown][] = [];
  const set = (column: string, value: unknown) => {
    sets.push([column, value]);
  };
  // what KBA the batch has once this PATCH's own kba_required (where allowed) is applied
  let kbaRequired = batch.kba_required === 1;
  if (body.kba_required !== undefined && body.kba_required !== (batch.kba_required === 1)) {
    if (batch.document_source !== "new") throw conflict("kba_required is derived from the batch's source template or package and cannot be changed", { document_source: batch.document_source }, "kba_immutable");
    if (batch.master_template_id) throw conflict("kba_required can no longer change: the editor was opened and the master template fixed it", { master_template_id: batch.master_template_id }, "kba_immutable");
    set("kba_required", body.kba_required ? 1 : 0);
    set("provider_instance", instanceFor(body.kba_required));
    kbaRequired = body.kba_required;
  }
  if (body.master_template_id !== undefined) {
    const template = await findTemplate(templateDb(ctx, body.master_template_id), orgId, body.master_template_id);
    if (!template) {
      throw unprocessable("Validation failed", [{ code: "invalid_value", expected: "a template of this organization", received: body.master_template_id, path: ["master_template_id"], message: "Template not found" }]);
    }
    // a master never changes KBA: otherwise swapping in a template without it would send a KBA batch unprotected
    if ((template.kba_required === 1) !== kbaRequired) {
      throw conflict(
        `The batch ${kbaRequired ? "requires" : "does not require"} KBA and template ${template.id} ${template.kba_required === 1 ? "does" : "does not"}: a master template cannot change the batch's KBA`,
        { kba_required: kbaRequired, master_template_id: template.id, template_kba_required: template.kba_required === 1 },
        "kba_immutable",
      );
    }
    set("master_template_id", template.id);
    set("master_source", null);
    set("provider_instance", template.provider_instance);
  }
  if (body.name !== undefined) set("name", body.name);
  if (body.preserve_signing_order !== undefined) set("preserve_signing_order", body.preserve_signing_order ? 1 : 0);
  if (body.add_me_as_signer !== undefined) set("add_me_as_signer", body.add_me_as_signer ? 1 : 0);
  if (body.tag_ids !== undefined) set("tag_ids", JSON.stringify(body.tag_ids));
  if (body.auto_vault_enabled !== undefined) {
    set("auto_vault_enabled", body.auto_vault_enabled ? 1 : 0);
    // turning auto-vault off clears the acceptance (as vault-consent with auto_vault_enabled false does)
    if (!body.auto_vault_enabled) {
      set("vault_terms_accepted_at", null);
      set("vault_terms_accepted_by", null);
    }
  }
  if (sets.length === 0) return batchDetail(batch);
  const at = nowIso();
  const [guard] = await commitWithBatchAudit(
    db,
    { orgId, batchId: batch.id, action: "bulk_batch.updated", actor: ctx.actor, data: { batch_id: batch.id, fields: Object.keys(body) }, at },
    [batchUpdate(db, batch.id, sets, at)],
    { guarded: true },
  );
  if (guard?.meta.changes !== 1) throw conflict("The batch is no longer draft or ready: it cannot be changed", { batch_id: batch.id });
  return batchDetail(await getBatch(db, orgId, batch.id));
}
