import { notFound } from "../../lib/errors";
import { jsonLists } from "../../lib/json-lists";
import type { AreaInput, FieldType, PlacementMode, ProviderInstance, ResolvedField } from "./schema";

export type TemplateRow = {
  id: string;
  org_id: string;
  name: string;
  external_id: string | null;
  kba_required: number;
  provider_instance: ProviderInstance;
  provider_template_id: number;
  origin: "upload" | "console" | "builder";
  document_key: string | null;
  document_sha256: string | null;
  document_size_bytes: number | null;
  page_count: number | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

export type FieldRow = {
  seq: number;
  name: string;
  type: FieldType;
  role: string;
  required: number;
  readonly: number;
  default_value: string | null;
  /** JSON array of strings (select and radio), else null */
  options: string | null;
  placement_mode: PlacementMode;
  areas: string;
  anchor_match: string | null;
};

/** A template of the organization, deleted ones included only when asked; other orgs' are not found. */
export async function findTemplate(db: D1Database, orgId: string, templateId: string, opts: { includeDeleted?: boolean } = {}) {
  const row = await db.prepare("SELECT * FROM templates WHERE id = ? AND org_id = ?").bind(templateId, orgId).first<TemplateRow>();
  if (!row || (row.deleted_at && !opts.includeDeleted)) return null;
  return row;
}

export async function getTemplate(db: D1Database, orgId: string, templateId: string): Promise<TemplateRow> {
  const row = await findTemplate(db, orgId, templateId);
  if (!row) throw notFound("Template");
  return row;
}

export async function listTemplateFields(db: D1Database, templateId: string): Promise<ResolvedField[]> {
  const { results } = await db.prepare("SELECT * FROM template_fields WHERE template_id = ? ORDER BY seq").bind(templateId).all<FieldRow>();
  return results.map(fieldFromRow);
}

export function fieldFromRow(row: FieldRow): ResolvedField {
  return {
    name: row.name,
    type: row.type,
    role: row.role,
    required: row.required === 1,
    readonly: row.readonly === 1,
    default_value: row.default_value,
    options: row.options ? (JSON.parse(row.options) as string[]) : null,
    placement_mode: row.placement_mode,
    areas: JSON.parse(row.areas) as AreaInput[],
    ...(row.anchor_match ? { anchor_match: JSON.parse(row.anchor_match) as AreaInput } : {}),
  };
}

/**
 * The INSERT of fields appended to a template: one statement for all of them (one per JSON list of
 * lib/json-lists.ts, in practice one), not one per field, so a 500-field template stays far inside D1's
 * 1,000 statements per invocation. Each statement numbers its rows after the template's highest `seq`
 * read in SQL, so statements in one batch number themselves in order and concurrent batches (D1 runs
 * them one at a time) never collide.
 */
export function insertTemplateFields(
  db: D1Database,
  input: { templateId: string; orgId: string; fields: ResolvedField[]; placements?: unknown[]; at: string; onlyWithDocumentKey?: string },
): D1PreparedStatement[] {
  // JSON text columns travel as strings inside the list, so json_extract hands back exactly the text stored today.
  const rows = input.fields.map((f, i) => ({
    name: f.name,
    type: f.type,
    role: f.role,
    required: f.required ? 1 : 0,
    readonly: f.readonly ? 1 : 0,
    default_value: f.default_value,
    placement_mode: f.placement_mode,
    areas: JSON.stringify(f.areas),
    anchor_match: f.anchor_match ? JSON.stringify(f.anchor_match) : null,
    placement: input.placements?.[i] !== undefined ? JSON.stringify(input.placements[i]) : null,
    options: f.options ? JSON.stringify(f.options) : null,
  }));
  // onlyWithDocumentKey: the fields come from that document; a losing concurrent upload inserts none into the winner's template.
  const onlyIf = input.onlyWithDocumentKey === undefined ? "" : "WHERE EXISTS (SELECT 1 FROM templates WHERE id = ?1 AND document_key = ?5)";
  return jsonLists(rows).map((list) =>
    db
      .prepare(
        // The MAX(seq) subquery is read once, before any row goes in: SQLite computes an INSERT … SELECT that
        // reads its own table in full first. `ORDER BY key` keeps the rowids in the fields' order.
        `INSERT INTO template_fields (template_id, seq, org_id, name, type, role, required, readonly, default_value, placement_mode, areas, anchor_match, placement, created_at, options)
         SELECT ?1, (SELECT COALESCE(MAX(seq), 0) FROM template_fields WHERE template_id = ?1) + j.key + 1, ?2,
                json_extract(j.value, '$.name'), json_extract(j.value, '$.type'), json_extract(j.value, '$.role'), json_extract(j.value, '$.required'),
                json_extract(j.value, '$.readonly'), json_extract(j.value, '$.default_value'), json_extract(j.value, '$.placement_mode'),
                json_extract(j.value, '$.areas'), json_extract(j.value, '$.anchor_match'), json_extract(j.value, '$.placement'), ?4,
                json_extract(j.value, '$.options')
         FROM json_each(?3) j ${onlyIf}
         ORDER BY j.key`,
      )
      .bind(input.templateId, input.orgId, list, input.at, ...(input.onlyWithDocumentKey === undefined ? [] : [input.onlyWithDocumentKey])),
  );
}

export const isFieldNameConflict = (err: unknown) => err instanceof Error && /UNIQUE constraint failed: template_fields\.template_id, template_fields\.name/.test(err.message);
