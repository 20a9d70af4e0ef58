import { conflict, type ErrorCodesByStatus } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import type { OrgContext } from "../../lib/context";
import { insertTemplate } from "./insert-template";
import { getTemplate, listTemplateFields, templateDb, templateRename, templateSoftDelete } from "./repository";
import type { CreateConsoleTemplateInput, UpdateTemplateInput } from "./schema";
import { templateDetail } from "./serialize";

/** POST /templates (console): a template without a document yet; `kba_required` decides its instance. */
export async function createConsoleTemplate(ctx: OrgContext, input: { body: CreateConsoleTemplateInput }) {
  const row = await insertTemplate(ctx, {
    name: input.body.name,
    externalId: input.body.external_id ?? null,
    kbaRequired: input.body.kba_required,
    origin: "console",
    document: null,
    fields: [],
  });
  return templateDetail(row, []);
}

export async function readTemplate(ctx: OrgContext, input: { templateId: string }) {
  const db = templateDb(ctx, input.templateId);
  const row = await getTemplate(db, ctx.orgId, input.templateId);
  return templateDetail(row, await listTemplateFields(db, row.id));
}

/**
 * PATCH /templates/:id. `kba_required` is fixed at creation (it decides which signing account holds
 * the template): sending a different value is 409, sending the same value is a no-op.
 */
export async function updateTemplate(ctx: OrgContext, input: { templateId: string; body: UpdateTemplateInput }) {
  // the organization's templates only (global, with their org-chain entry); a builder working copy is not found here
  const db = ctx.global;
  const row = await getTemplate(db, ctx.orgId, input.templateId);
  const { kba_required, ...changes } = input.body;
  if (kba_required !== undefined && kba_required !== (row.kba_required === 1)) {
    throw conflict("kba_required is fixed when a template is created and cannot be changed; create a new template instead", { kba_required: row.kba_required === 1 }, "kba_immutable");
  }
  const next = { ...row, name: changes.name ?? row.name, external_id: changes.external_id !== undefined ? changes.external_id : row.external_id, updated_at: nowIso() };
  await commitWithOrgAudit(db, { orgId: ctx.orgId, action: "template.updated", actor: ctx.actor, data: { template_id: row.id, ...changes }, at: next.updated_at }, [
    templateRename(db, row.id, next),
  ]);
  return templateDetail(next, await listTemplateFields(db, row.id));
}

/**
 * DELETE /templates/:id: soft delete. Envelopes already made from it keep its document; it can no
 * longer start envelopes, join packages or builder sessions.
 */
export async function deleteTemplate(ctx: OrgContext, input: { templateId: string }) {
  const db = ctx.global;
  const row = await getTemplate(db, ctx.orgId, input.templateId);
  const at = nowIso();
  await commitWithOrgAudit(db, { orgId: ctx.orgId, action: "template.deleted", actor: ctx.actor, data: { template_id: row.id }, at }, [
    templateSoftDelete(db, row.id, at),
  ]);
  return templateDetail({ ...row, deleted_at: at, updated_at: at }, await listTemplateFields(db, row.id));
}

/** Whether a template asks for KBA is fixed once an envelope used it. */
export const KBA_IMMUTABLE_ERRORS: ErrorCodesByStatus = { 409: ["kba_immutable"] };
