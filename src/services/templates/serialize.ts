import type { TemplateRow } from "./repository";
import type { ResolvedField } from "./schema";

export function templateDetail(row: TemplateRow, fields: ResolvedField[]) {
  return {
    template_id: row.id,
    name: row.name,
    external_id: row.external_id,
    kba_required: row.kba_required === 1,
    provider_instance: row.provider_instance,
    provider_template_id: row.provider_template_id,
    has_document: row.document_key !== null,
    page_count: row.page_count,
    fields,
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
  };
}
