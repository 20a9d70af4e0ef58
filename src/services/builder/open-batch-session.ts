import { onShardOf, type OrgContext } from "../../lib/context";
import { badRequest, conflict } from "../../lib/errors";
import { newShardId } from "../../lib/shards";
import { addSeconds, nowIso } from "../../lib/time";
import { commitWithBatchAudit } from "../bulk/batch-chain";
import { templateIdOf } from "../bulk/create-batch";
import { batchMasterSet, getBatch } from "../bulk/repository";
import { assertEditable } from "../bulk/serialize";
import { findTemplate, listTemplateFields, listTemplateRoles, templateDb } from "../templates/repository";
import { buildWorkingTemplate, sameSource, sessionOut, sourceOf, type StoredSource } from "./open-builder-session";
import { resolveSources } from "./resolve-sources";
import type { OpenBuilderSessionInput } from "./schema";

const SESSION_SECONDS = 3600;

/**
 * POST /esign/builder-session with `batch_id` (spec 4.7): the batch's master template, cloned from its
 * source template, merged from its package (every member, in package order: `package_template_ids`
 * is a 400 with a batch, as the spec says), or started empty for `new` (with the batch's KBA choice,
 * or `kba_required` given here while no master exists). The source defaults to the batch's own.
 * The master is recorded as the batch's `master_template_id` (only while draft or ready: 409 after);
 * the answer adds `roles`, the master's parties in order. Reopening on the same batch and source
 * continues the same master; another source builds a new one and replaces it.
 */
export async function openBatchBuilderSession(anywhere: OrgContext, input: { batchId: string; body: OpenBuilderSessionInput }) {
  // the batch's shard: its master (a builder working copy) is written there, whatever the organization's current shard
  const ctx = onShardOf(anywhere, input.batchId);
  const { db, orgId } = ctx;
  const { body } = input;
  // the spec's 400s of a batch session come first, whatever the batch
  if (body.package_template_ids) throw badRequest("package_template_ids cannot be used with batch_id");
  if (body.template_ids) throw badRequest("template_ids cannot be used with a batch");
  const batch = await getBatch(db, orgId, input.batchId);
  assertEditable(batch, "open the editor on");
  const explicit = body.template_id !== undefined || body.package_id !== undefined;
  const effective: OpenBuilderSessionInput = explicit
    ? body
    : {
        ...body,
        ...(batch.document_source === "template" && batch.source_template_id ? { template_id: templateIdOf(batch.source_template_id) } : {}),
        ...(batch.document_source === "package" && batch.source_package_id ? { package_id: batch.source_package_id } : {}),
        ...(batch.document_source === "new" ? { kba_required: body.kba_required ?? batch.kba_required === 1 } : {}),
      };
  const source = await resolveSources(ctx, { body: effective });
  const stored = sourceOf(source);
  const at = nowIso();
  const session = { id: newShardId("builderSession", ctx.shardId), created_at: at, expires_at: addSeconds(at, SESSION_SECONDS) };

  const existing = batch.master_template_id ? await findTemplate(templateDb(ctx, batch.master_template_id), orgId, batch.master_template_id) : null;
  const previous = batch.master_source ? (JSON.parse(batch.master_source) as StoredSource) : null;
  if (existing && previous && sameSource(previous, stored) && (source.kind !== "new" || source.kbaRequired === (existing.kba_required === 1))) {
    const masterDb = templateDb(ctx, existing.id);
    const fields = await listTemplateFields(masterDb, existing.id);
    return { ...sessionOut(session, null, existing, previous, true, fields), batch_id: batch.id, roles: await listTemplateRoles(masterDb, existing.id) };
  }
  if (existing && source.kind === "new" && body.kba_required !== undefined && source.kbaRequired !== (existing.kba_required === 1)) {
    throw conflict("kba_required can no longer change: the batch's master template fixed it", { master_template_id: existing.id }, "kba_immutable");
  }

  const { template, fields } = await buildWorkingTemplate(ctx, {
    source,
    name: body.template_name ?? (source.templates.length === 1 ? source.templates[0]!.name : batch.name),
  });
  const [guard] = await commitWithBatchAudit(
    db,
    { orgId, batchId: batch.id, action: "bulk_batch.updated", actor: ctx.actor, data: { batch_id: batch.id, master_template_id: template.id, source: stored }, at },
    [
      batchMasterSet(db, { batchId: batch.id, templateId: template.id, source: JSON.stringify(stored), kbaRequired: template.kba_required, providerInstance: template.provider_instance, at }),
    ],
    { guarded: true },
  );
  if (guard?.meta.changes !== 1) throw conflict("The batch is no longer draft or ready: its master template cannot change", { batch_id: batch.id });
  const roles = [...new Set(fields.map((f) => f.role))];
  return { ...sessionOut(session, null, template, stored, false, fields), batch_id: batch.id, roles };
}
