import type { Row } from "../../db/row";
import type { signingProviderTemplates, templateFields, templates } from "../../db/schema";
import { onShardOf, type RequestContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { jsonLists } from "../../lib/json-lists";
import { isShardTagged, type GlobalDb, type ShardDb } from "../../lib/shards";
import { pageSizesText } from "../documents/repository";
import type { StoredDocument } from "../documents/ingest-pdf";
import type { AreaInput, FieldType, ResolvedField } from "./schema";

/**
 * Statements on `templates`, `template_fields` and `signing_provider_templates`. (The fields copied
 * onto an envelope, `envelope_fields`, live in documents/repository.ts: documents/ is below templates/.)
 */

export type TemplateRow = Row<typeof templates>;
export type FieldRow = Row<typeof templateFields>;
export type ProviderTemplateRow = Row<typeof signingProviderTemplates>;

/**
 * Where a template's rows are (docs/decisions/shards.md 1): the organization's own templates (origin
 * upload, console, partner), their fields and provider counterparts in the global database; a builder
 * working copy (origin builder, a tagged id) on the shard of the envelope or batch it was made for.
 */
export type TemplateDb = GlobalDb | ShardDb;

/** The database holding template `templateId`: its shard when the id is tagged (a builder working copy), else global. */
export function templateDb(ctx: RequestContext, templateId: string): TemplateDb {
  return isShardTagged(templateId) ? onShardOf(ctx, templateId).db : ctx.global;
}

// ---- templates ----

/** For a batch: the template (one row, all columns) if it is the organization's, deleted or not. */
export function selectTemplate(db: TemplateDb, orgId: string, templateId: string): D1PreparedStatement {
  return db.prepare("SELECT * FROM templates WHERE id = ? AND org_id = ?").bind(templateId, orgId);
}

/** A template of the organization, deleted ones included only when asked; other orgs' are not found. */
export async function findTemplate(db: TemplateDb, orgId: string, templateId: string, opts: { includeDeleted?: boolean } = {}) {
  const row = await selectTemplate(db, orgId, templateId).first<TemplateRow>();
  if (!row || (row.deleted_at && !opts.includeDeleted)) return null;
  return row;
}

export async function getTemplate(db: TemplateDb, orgId: string, templateId: string): Promise<TemplateRow> {
  const row = await findTemplate(db, orgId, templateId);
  if (!row) throw notFound("Template");
  return row;
}

/** The organization's templates among `ids` (deleted ones included), in no particular order; ids not found are missing. */
export async function listTemplatesByIds(db: TemplateDb, orgId: string, ids: string[]): Promise<TemplateRow[]> {
  const { results } = await db
    .prepare(`SELECT * FROM templates WHERE org_id = ? AND id IN (${ids.map(() => "?").join(", ")})`)
    .bind(orgId, ...ids)
    .all<TemplateRow>();
  return results;
}

/**
 * A page of the organization's templates that are not deleted, newest first, and how many there are
 * in all. (Deleted templates cannot start envelopes; their reads are 404 as well.)
 */
export async function listTemplatesPage(db: GlobalDb, input: { orgId: string; limit: number; offset: number }): Promise<{ rows: TemplateRow[]; total: number }> {
  const [rows, count] = await db.batch<TemplateRow | { total: number }>([
    db.prepare("SELECT * FROM templates WHERE org_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?").bind(input.orgId, input.limit, input.offset),
    db.prepare("SELECT COUNT(*) AS total FROM templates WHERE org_id = ? AND deleted_at IS NULL").bind(input.orgId),
  ]);
  return {
    rows: (rows?.results ?? []) as TemplateRow[],
    total: (count?.results[0] as { total: number } | undefined)?.total ?? 0,
  };
}

export function templateInsert(db: TemplateDb, row: TemplateRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO templates (id, org_id, name, external_id, kba_required, provider_instance, provider_template_id, origin,
         document_key, document_sha256, document_size_bytes, page_count, page_sizes, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(row.id, row.org_id, row.name, row.external_id, row.kba_required, row.provider_instance, row.provider_template_id, row.origin,
      row.document_key, row.document_sha256, row.document_size_bytes, row.page_count, row.page_sizes, row.created_at, row.updated_at);
}

/** Marks the template changed (its fields were). */
export function templateTouch(db: TemplateDb, templateId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE templates SET updated_at = ? WHERE id = ?").bind(at, templateId);
}

/** Gives the template its document, guarded on it having none yet (a losing concurrent upload changes nothing). */
export function templateDocumentUpdate(
  db: TemplateDb,
  templateId: string,
  document: StoredDocument,
  at: string,
): D1PreparedStatement {
  return db
    .prepare("UPDATE templates SET document_key = ?, document_sha256 = ?, document_size_bytes = ?, page_count = ?, page_sizes = ?, updated_at = ? WHERE id = ? AND document_key IS NULL")
    .bind(document.key, document.sha256, document.sizeBytes, document.pageCount, pageSizesText(document.pageSizes), at, templateId);
}

/** Sets the name and external id of a template that is not deleted. */
export function templateRename(db: TemplateDb, templateId: string, next: Pick<TemplateRow, "name" | "external_id" | "updated_at">): D1PreparedStatement {
  return db.prepare("UPDATE templates SET name = ?, external_id = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL").bind(next.name, next.external_id, next.updated_at, templateId);
}

export function templateSoftDelete(db: TemplateDb, templateId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE templates SET deleted_at = ?, updated_at = ? WHERE id = ?").bind(at, at, templateId);
}

/**
 * Archives (soft-deletes) a bulk batch's builder-made master template, only if the batch was deleted
 * at `at` by the statement before it in the same D1 batch (a batch that is no longer editable keeps its master).
 */
export function batchMasterTemplateArchive(db: ShardDb, input: { templateId: string; orgId: string; batchId: string; at: string }): D1PreparedStatement {
  return db
    .prepare("UPDATE templates SET deleted_at = ?, updated_at = ? WHERE id = ? AND org_id = ? AND origin = 'builder' AND deleted_at IS NULL AND (SELECT deleted_at FROM bulk_batches WHERE id = ?) = ?")
    .bind(input.at, input.at, input.templateId, input.orgId, input.batchId, input.at);
}

// ---- template_fields ----

/** For a batch: every field row of the template, in field order. */
export function selectTemplateFields(db: TemplateDb, templateId: string): D1PreparedStatement {
  return db.prepare("SELECT * FROM template_fields WHERE template_id = ? ORDER BY seq").bind(templateId);
}

export async function listTemplateFields(db: TemplateDb, templateId: string): Promise<ResolvedField[]> {
  const { results } = await selectTemplateFields(db, templateId).all<FieldRow>();
  return results.map(fieldFromRow);
}

/** The roles of the template's fields, in the order of each role's first field: the parties it is addressed to. */
export async function listTemplateRoles(db: TemplateDb, templateId: string): Promise<string[]> {
  const { results } = await db.prepare("SELECT role FROM template_fields WHERE template_id = ? GROUP BY role ORDER BY MIN(seq)").bind(templateId).all<Pick<FieldRow, "role">>();
  return results.map((r) => r.role);
}

/**
 * For a page of templates (ids travel as one JSON list): each template's roles in the order of each
 * role's first field, and its number of fields. Templates without fields are absent from the map.
 */
export async function listRolesAndFieldCounts(db: GlobalDb, templateIds: string[]): Promise<Map<string, { roles: string[]; fieldCount: number }>> {
  const out = new Map<string, { roles: string[]; fieldCount: number }>();
  if (templateIds.length === 0) return out;
  const { results } = await db
    .prepare(
      `SELECT template_id, role, COUNT(*) AS fields FROM template_fields
       WHERE template_id IN (SELECT value FROM json_each(?))
       GROUP BY template_id, role ORDER BY template_id, MIN(seq)`,
    )
    .bind(JSON.stringify(templateIds))
    .all<Pick<FieldRow, "template_id" | "role"> & { fields: number }>();
  for (const r of results) {
    const entry = out.get(r.template_id) ?? { roles: [], fieldCount: 0 };
    entry.roles.push(r.role);
    entry.fieldCount += r.fields;
    out.set(r.template_id, entry);
  }
  return out;
}

/** Every field row of the template, in field order (what an envelope made from it copies, as values: see envelopeFieldsFromTemplateInsert). */
export async function listTemplateFieldRows(db: TemplateDb, templateId: string): Promise<FieldRow[]> {
  const { results } = await selectTemplateFields(db, templateId).all<FieldRow>();
  return results;
}

export function fieldFromRow(row: FieldRow): ResolvedField {
  return {
    name: row.name,
    type: row.type as FieldType, // the column holds only the field types the services write
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
  db: TemplateDb,
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

// ---- signing_provider_templates ----

/** The signing provider's own record of a template (its counterpart), if it exists: `{ id }`. */
export function findProviderTemplate(db: TemplateDb, instance: ProviderTemplateRow["instance"], providerTemplateId: number): Promise<Pick<ProviderTemplateRow, "id"> | null> {
  return db.prepare("SELECT id FROM signing_provider_templates WHERE instance = ? AND id = ?").bind(instance, providerTemplateId).first<Pick<ProviderTemplateRow, "id">>();
}
