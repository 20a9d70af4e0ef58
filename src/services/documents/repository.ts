import type { Row } from "../../db/row";
import type { envelopeDocuments, envelopeFields } from "../../db/schema";
import { jsonLists } from "../../lib/json-lists";
import type { PageSize } from "../../pdf";
import type { ResolvedField } from "./schema";

/**
 * Statements on `envelope_documents` and `envelope_fields` (the document an envelope is signed on and
 * the fields placed on it). The fields live here rather than in templates/ although they are usually
 * copied from a template: documents/ is below templates/ (templates ingest PDFs and place fields
 * through documents/), and attaching a document to an envelope writes its fields too.
 */

export type EnvelopeDocumentRow = Row<typeof envelopeDocuments>;
export type EnvelopeFieldRow = Row<typeof envelopeFields>;

// ---- envelope_documents ----

type NewDocument = {
  id: string; envelopeId: string; orgId: string; key: string; sha256: string; sizeBytes: number; pageCount: number | null; at: string; evidenceLevel?: string | null;
  /** an original's displayed page sizes (`StoredDocument.pageSizes`, or a template's `page_sizes` text as stored); null: not recorded */
  pageSizes?: PageSize[] | string | null;
};

/** Page sizes as stored: `[[width, height], …]` (compact; a 300-page loan file is a few KB). */
export const pageSizesText = (sizes: PageSize[] | string | null | undefined): string | null =>
  sizes == null ? null : typeof sizes === "string" ? sizes : JSON.stringify(sizes.map((p) => [p.width, p.height]));

/** Stored page sizes as the API gives them; null when none were recorded (or the text is not what this code writes). */
export function pageSizesOf(text: string | null): PageSize[] | null {
  if (!text) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(raw) || raw.length === 0) return null;
  const sizes: PageSize[] = [];
  for (const p of raw) {
    if (!Array.isArray(p) || typeof p[0] !== "number" || typeof p[1] !== "number" || !(p[0] > 0 && p[1] > 0)) return null;
    sizes.push({ width: p[0], height: p[1] });
  }
  return sizes;
}

/** An envelope_documents row of `kind`; `ifAbsent` leaves an existing one of that kind in place. */
function documentInsert(db: D1Database, kind: "original" | "signed", input: NewDocument, ifAbsent = false): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO envelope_documents (id, envelope_id, org_id, kind, r2_key, sha256, size_bytes, page_count, page_sizes, created_at, evidence_level)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)${ifAbsent ? " ON CONFLICT (envelope_id, kind) DO NOTHING" : ""}`,
    )
    .bind(input.id, input.envelopeId, input.orgId, kind, input.key, input.sha256, input.sizeBytes, input.pageCount, pageSizesText(input.pageSizes), input.at, input.evidenceLevel ?? null);
}

/** The original document row of an envelope (kind `original`). */
export const insertOriginalDocument = (db: D1Database, input: NewDocument) => documentInsert(db, "original", input);

/** The signed document row written by the last signer's submit (signing/complete-envelope.ts). */
export const signedDocumentInsert = (db: D1Database, input: NewDocument & { pageCount: number }) => documentInsert(db, "signed", input);

/** The paper path's signed document: the upload is stored once, as the authoritative copy (a re-run leaves the first). */
export const insertSignedDocumentIfAbsent = (db: D1Database, input: NewDocument & { pageCount: number }) => documentInsert(db, "signed", input, true);


/**
 * The raising job's write (jobs/raise-evidence.ts): the signed document now lives at `key` with its
 * new hash, size and PAdES level. Guarded by the hash it was raised from, in the envelope's commit.
 */
export function signedDocumentRaise(db: D1Database, input: { envelopeId: string; fromSha256: string; key: string; sha256: string; sizeBytes: number; evidenceLevel: string }): D1PreparedStatement {
  return db
    .prepare("UPDATE envelope_documents SET r2_key = ?, sha256 = ?, size_bytes = ?, evidence_level = ? WHERE envelope_id = ? AND kind = 'signed' AND sha256 = ?")
    .bind(input.key, input.sha256, input.sizeBytes, input.evidenceLevel, input.envelopeId, input.fromSha256);
}

/** A signed document the raising job may raise: its envelope is `completed` (not yet vaulted). */
export type RaisableDocument = Pick<EnvelopeDocumentRow, "envelope_id" | "org_id" | "r2_key" | "sha256" | "evidence_level">;

/**
 * The raising job's slice: signed documents of `completed` envelopes whose recorded level is one of
 * `levels` (one JSON array: those below the target), after `cursor` in envelope id order. A document
 * sealed before levels were recorded (NULL) is left as it was sealed.
 */
export async function listRaisableSignedDocuments(db: D1Database, input: { levels: string; cursor: string; limit: number }): Promise<RaisableDocument[]> {
  const { results } = await db
    .prepare(
      // SQL exception: driven by the envelopes' partial index of `completed` (`status = 'completed'`
      // verbatim), each envelope's signed document found through its unique (envelope_id, kind).
      `SELECT d.envelope_id, d.org_id, d.r2_key, d.sha256, d.evidence_level
       FROM envelopes e INDEXED BY envelopes_completed_idx
       JOIN envelope_documents d ON d.envelope_id = e.id AND d.kind = 'signed'
       WHERE e.status = 'completed' AND e.id > ? AND e.document_source != 'upload'
         AND d.evidence_level IN (SELECT value FROM json_each(?))
       ORDER BY e.id LIMIT ?`,
    )
    .bind(input.cursor, input.levels, input.limit)
    .all<RaisableDocument>();
  return results;
}

/** For a batch: the envelopes among `envelopeIds` (one JSON array) that have an original document, one row `{ envelope_id }` each. */
export function selectEnvelopesWithOriginal(db: D1Database, envelopeIds: string): D1PreparedStatement {
  return db.prepare("SELECT DISTINCT envelope_id FROM envelope_documents WHERE envelope_id IN (SELECT value FROM json_each(?1)) AND kind = 'original'").bind(envelopeIds);
}

// ---- envelope_fields ----

/** INSERTs of fields onto an envelope (from its uploaded document's tags, or a builder working copy). */
export function insertEnvelopeFields(
  db: D1Database,
  input: { envelopeId: string; orgId: string; fields: ResolvedField[]; sourceTemplateId: string | null; at: string },
): D1PreparedStatement[] {
  return input.fields.map((f, i) =>
    db
      .prepare(
        `INSERT INTO envelope_fields (envelope_id, seq, org_id, name, type, role, required, readonly, default_value, options, value, placement_mode, areas, anchor_match, source_template_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(input.envelopeId, i + 1, input.orgId, f.name, f.type, f.role, f.required ? 1 : 0, f.readonly ? 1 : 0, f.default_value, f.options ? JSON.stringify(f.options) : null,
        f.default_value, f.placement_mode, JSON.stringify(f.areas), f.anchor_match ? JSON.stringify(f.anchor_match) : null, input.sourceTemplateId, input.at),
  );
}

/** A template's field row as copyTemplateFieldRows takes it (templates/repository.ts listTemplateFieldRows). */
type TemplateFieldValues = {
  template_id: string; seq: number; org_id: string; name: string; type: string; role: string; required: number; readonly: number;
  default_value: string | null; options: string | null; placement_mode: string; areas: string; anchor_match: string | null;
};

/**
 * Copies a template's fields onto an envelope; `values` (field name -> text or null) overrides the
 * defaults, as prefilled_data does. The template may be in another database than the envelope (the
 * organization's templates are global, the envelope on its shard: docs/decisions/shards.md 3, no
 * statement reads both), so its field rows are read first and travel as one JSON list.
 */
export function copyTemplateFieldRows(
  db: D1Database,
  input: { envelopeId: string; fields: TemplateFieldValues[]; values: Record<string, string | null>; at: string },
): D1PreparedStatement[] {
  // JSON text columns travel as strings inside the list, so json_extract hands back exactly the text stored
  const rows = input.fields.map((f) => ({
    template_id: f.template_id, seq: f.seq, org_id: f.org_id, name: f.name, type: f.type, role: f.role, required: f.required, readonly: f.readonly,
    default_value: f.default_value, options: f.options, placement_mode: f.placement_mode, areas: f.areas, anchor_match: f.anchor_match,
    value: Object.hasOwn(input.values, f.name) ? input.values[f.name] : f.default_value,
  }));
  const col = (name: string) => `json_extract(j.value, '$.${name}')`;
  const insert = db.prepare(
    `INSERT INTO envelope_fields (envelope_id, seq, org_id, name, type, role, required, readonly, default_value, options, value, placement_mode, areas, anchor_match, source_template_id, created_at)
     SELECT ?1, ${["seq", "org_id", "name", "type", "role", "required", "readonly", "default_value", "options", "value", "placement_mode", "areas", "anchor_match", "template_id"].map(col).join(", ")}, ?2
     FROM json_each(?3) j`,
  );
  // one statement per JSON list (lib/json-lists.ts): in practice one, however many fields
  return jsonLists(rows).map((list) => insert.bind(input.envelopeId, input.at, list));
}

/**
 * For a batch: the roles of the fields of each envelope among `envelopeIds` (one JSON array), rows
 * `{ envelope_id, role }` in envelope order and, per envelope, in the order of each role's first field.
 */
export function selectEnvelopeRoles(db: D1Database, envelopeIds: string): D1PreparedStatement {
  return db
    .prepare("SELECT envelope_id, role FROM envelope_fields WHERE envelope_id IN (SELECT value FROM json_each(?1)) GROUP BY envelope_id, role ORDER BY envelope_id, MIN(seq)")
    .bind(envelopeIds);
}

// ---- envelope_documents, for the vault (services/vault: vault-in) ----

/** The envelope's signed document (envelope_documents, kind `signed`): its R2 key and recorded SHA-256. */
export function findSignedDocument(db: D1Database, envelopeId: string): Promise<Pick<EnvelopeDocumentRow, "r2_key" | "sha256" | "evidence_level" | "size_bytes"> | null> {
  return db
    .prepare("SELECT r2_key, sha256, evidence_level, size_bytes FROM envelope_documents WHERE envelope_id = ? AND kind = 'signed'")
    .bind(envelopeId)
    .first<Pick<EnvelopeDocumentRow, "r2_key" | "sha256" | "evidence_level" | "size_bytes">>();
}

/** The recorded SHA-256 of the envelope's signed document (kind `signed`), if one is recorded. */
export function findSignedDocumentHash(db: D1Database, envelopeId: string): Promise<Pick<EnvelopeDocumentRow, "sha256"> | null> {
  return db
    .prepare("SELECT sha256 FROM envelope_documents WHERE envelope_id = ? AND kind = 'signed'")
    .bind(envelopeId)
    .first<Pick<EnvelopeDocumentRow, "sha256">>();
}


/** A field as the signing page and completion read it. */
export type SigningFieldRow = Pick<EnvelopeFieldRow, "seq" | "name" | "type" | "role" | "required" | "readonly" | "default_value" | "options" | "areas" | "value">;

/** The envelope's fields in placement order, with the values signed so far. */
export async function listSigningFields(db: D1Database, envelopeId: string): Promise<SigningFieldRow[]> {
  const { results } = await db
    .prepare("SELECT seq, name, type, role, required, readonly, default_value, options, areas, value FROM envelope_fields WHERE envelope_id = ? ORDER BY seq")
    .bind(envelopeId)
    .all<SigningFieldRow>();
  return results;
}

/** A submitted value onto its field (the signer's own fields only: the caller accepted them). */
export function setFieldValueStatement(db: D1Database, envelopeId: string, name: string, value: string): D1PreparedStatement {
  return db.prepare("UPDATE envelope_fields SET value = ? WHERE envelope_id = ? AND name = ?").bind(value, envelopeId, name);
}

// ---- envelope_documents, for signing (services/signing) ----

/** The R2 key of the envelope's original document (kind `original`). */
export function findOriginalDocumentKey(db: D1Database, envelopeId: string): Promise<Pick<EnvelopeDocumentRow, "r2_key"> | null> {
  return db.prepare("SELECT r2_key FROM envelope_documents WHERE envelope_id = ? AND kind = 'original'").bind(envelopeId).first<Pick<EnvelopeDocumentRow, "r2_key">>();
}

/** The displayed page sizes recorded for the envelope's original document (null: no document, or none recorded). */
export function findOriginalPageSizes(db: D1Database, envelopeId: string): Promise<Pick<EnvelopeDocumentRow, "page_sizes"> | null> {
  return db.prepare("SELECT page_sizes FROM envelope_documents WHERE envelope_id = ? AND kind = 'original'").bind(envelopeId).first<Pick<EnvelopeDocumentRow, "page_sizes">>();
}

/** The envelope's original document (kind `original`): its R2 key and SHA-256. */
export function findOriginalDocument(db: D1Database, envelopeId: string): Promise<Pick<EnvelopeDocumentRow, "r2_key" | "sha256"> | null> {
  return db
    .prepare("SELECT r2_key, sha256 FROM envelope_documents WHERE envelope_id = ? AND kind = 'original'")
    .bind(envelopeId)
    .first<Pick<EnvelopeDocumentRow, "r2_key" | "sha256">>();
}

/** Every stored document object of the envelope (original, signed), for a destruction to delete. */
export async function listEnvelopeDocumentObjects(db: D1Database, envelopeId: string): Promise<Pick<EnvelopeDocumentRow, "kind" | "r2_key" | "sha256">[]> {
  const { results } = await db
    .prepare("SELECT kind, r2_key, sha256 FROM envelope_documents WHERE envelope_id = ? ORDER BY kind")
    .bind(envelopeId)
    .all<Pick<EnvelopeDocumentRow, "kind" | "r2_key" | "sha256">>();
  return results;
}
