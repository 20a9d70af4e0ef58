import { actingUserId } from "../../lib/actor";
import type { OrgContext } from "../../lib/context";
import { unprocessable } from "../../lib/errors";
import { newShardId } from "../../lib/shards";
import type { ApiIssue } from "../../lib/validation";
import { nowIso } from "../../lib/time";
import { commitWithBatchAudit } from "./batch-chain";
import { findPackageKba } from "../packages/repository";
import { findTemplate, templateDb } from "../templates/repository";
import { instanceFor } from "../templates/schema";
import { batchInsert, getBatch } from "./repository";
import { batchDetail } from "./serialize";
import type { CreateBatchInput } from "./schema";

const issue = (path: string[], expected: string, received: string, message: string): ApiIssue => ({ code: "invalid_value", expected, received, path, message });

/** A bulk-send source template may appear with prefix `tpl_` (spec part 2): the same template as `tmpl_`. */
export const templateIdOf = (id: string) => (id.startsWith("tpl_") ? `tmpl_${id.slice(4)}` : id);

/**
 * The source of a batch, checked: a live template (with its document) or package of the organization.
 * `kba_required` and `provider_instance` are derived from it; only a `new` document chooses KBA.
 */
export async function resolveBatchSource(ctx: OrgContext, body: Pick<CreateBatchInput, "document_source" | "source_template_id" | "source_package_id" | "kba_required">) {
  const { orgId } = ctx;
  if (body.document_source !== "new" && body.kba_required !== undefined) {
    throw unprocessable("Validation failed", [issue(["kba_required"], "omitted", String(body.kba_required), "kba_required is derived from the source template or package; it can be set only for document_source new")]);
  }
  if (body.document_source === "template") {
    if (!body.source_template_id) throw unprocessable("Validation failed", [issue(["source_template_id"], "a template id", "undefined", "source_template_id is required for document_source template")]);
    const id = templateIdOf(body.source_template_id);
    const template = await findTemplate(templateDb(ctx, id), orgId, id);
    if (!template) throw unprocessable("Validation failed", [issue(["source_template_id"], "a template of this organization", body.source_template_id, "Template not found")]);
    return { sourceTemplateId: id, sourcePackageId: null, kbaRequired: template.kba_required === 1 };
  }
  if (body.document_source === "package") {
    if (!body.source_package_id) throw unprocessable("Validation failed", [issue(["source_package_id"], "a package id", "undefined", "source_package_id is required for document_source package")]);
    const pkg = await findPackageKba(ctx.global, orgId, body.source_package_id);
    if (!pkg) throw unprocessable("Validation failed", [issue(["source_package_id"], "a document package of this organization", body.source_package_id, "Package not found")]);
    return { sourceTemplateId: null, sourcePackageId: body.source_package_id, kbaRequired: pkg.kba_required === 1 };
  }
  return { sourceTemplateId: null, sourcePackageId: null, kbaRequired: body.kba_required ?? false };
}

/**
 * POST /bulk-send: a `draft` batch; the creating user is the sender of every envelope. The batch lives
 * on the organization's current shard (`ctx.db`) with an id naming it, and stays there whatever the
 * organization's placement later: its items, envelopes and master template follow it.
 */
export async function createBatch(ctx: OrgContext, input: { body: CreateBatchInput }) {
  const { db, orgId } = ctx;
  const { body } = input;
  const source = await resolveBatchSource(ctx, body);
  const id = newShardId("bulkBatch", ctx.shardId);
  const at = nowIso();
  await commitWithBatchAudit(db, { orgId, batchId: id, action: "bulk_batch.created", actor: ctx.actor, data: { batch_id: id, name: body.name, document_source: body.document_source }, at }, [
    batchInsert(db, {
      id,
      org_id: orgId,
      name: body.name,
      document_source: body.document_source,
      source_template_id: source.sourceTemplateId,
      source_package_id: source.sourcePackageId,
      kba_required: source.kbaRequired ? 1 : 0,
      provider_instance: instanceFor(source.kbaRequired),
      preserve_signing_order: body.preserve_signing_order === false ? 0 : 1,
      add_me_as_signer: body.add_me_as_signer ? 1 : 0,
      auto_vault_enabled: body.auto_vault_enabled ? 1 : 0,
      tag_ids: JSON.stringify(body.tag_ids ?? []),
      created_by: actingUserId(ctx.actor),
      created_at: at,
      updated_at: at,
    }),
  ]);
  return batchDetail(await getBatch(db, orgId, id));
}
