import type { TemplateRow } from "./repository";
import type { ResolvedField } from "./schema";

/** What every view of a template starts with (the spec's Template). */
const templateBase = (row: TemplateRow) => ({
  template_id: row.id,
  name: row.name,
  external_id: row.external_id,
  kba_required: row.kba_required === 1,
  provider_instance: row.provider_instance,
  provider_template_id: row.provider_template_id,
  has_document: row.document_key !== null,
  page_count: row.page_count,
});

export function templateDetail(row: TemplateRow, fields: ResolvedField[]) {
  return { ...templateBase(row), fields, created_at: row.created_at, updated_at: row.updated_at, deleted_at: row.deleted_at };
}

/** The parties a template is addressed to: its fields' roles, in the order of each role's first field. */
export const rolesOf = (fields: ResolvedField[]) => [...new Set(fields.map((f) => f.role))];

/** A template as the partner API shows it in a list (the spec's Template, roles and field count). */
export function partnerTemplateListItem(row: TemplateRow, summary: { roles: string[]; fieldCount: number }) {
  return {
    ...templateBase(row),
    roles: summary.roles,
    field_count: summary.fieldCount,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A template as GET /partner/templates/:id shows it: the list item plus every field. */
export function partnerTemplateDetail(row: TemplateRow, fields: ResolvedField[]) {
  return { ...partnerTemplateListItem(row, { roles: rolesOf(fields), fieldCount: fields.length }), fields };
}
