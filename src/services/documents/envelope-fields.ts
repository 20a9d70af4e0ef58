import type { ResolvedField } from "../templates/schema";

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

/**
 * Copies a template's fields onto an envelope in one statement; `values` (field name -> text or
 * null) overrides the defaults, as prefilled_data does.
 */
export function copyTemplateFields(
  db: D1Database,
  input: { envelopeId: string; templateId: string; values: Record<string, string | null>; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO envelope_fields (envelope_id, seq, org_id, name, type, role, required, readonly, default_value, options, value, placement_mode, areas, anchor_match, source_template_id, created_at)
       SELECT ?1, tf.seq, tf.org_id, tf.name, tf.type, tf.role, tf.required, tf.readonly, tf.default_value, tf.options,
              CASE WHEN p.key IS NULL THEN tf.default_value ELSE p.value END, tf.placement_mode, tf.areas, tf.anchor_match, tf.template_id, ?2
       FROM template_fields tf LEFT JOIN json_each(?3) p ON p.key = tf.name
       WHERE tf.template_id = ?4`,
    )
    .bind(input.envelopeId, input.at, JSON.stringify(input.values), input.templateId);
}

/** The original document row of an envelope (envelope_documents, kind `original`). */
export function insertOriginalDocument(
  db: D1Database,
  input: { id: string; envelopeId: string; orgId: string; key: string; sha256: string; sizeBytes: number; pageCount: number | null; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO envelope_documents (id, envelope_id, org_id, kind, r2_key, sha256, size_bytes, page_count, created_at)
       VALUES (?, ?, ?, 'original', ?, ?, ?, ?, ?)`,
    )
    .bind(input.id, input.envelopeId, input.orgId, input.key, input.sha256, input.sizeBytes, input.pageCount, input.at);
}
