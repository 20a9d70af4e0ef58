import type { Row } from "../../db/row";
import type { builderSessions } from "../../db/schema";

/** Statements on `builder_sessions`. */

export type BuilderSessionRow = Row<typeof builderSessions>;

/** The source (JSON text) of the envelope's latest builder session, or null when it has none. */
export function getLatestSessionSource(db: D1Database, envelopeId: string): Promise<Pick<BuilderSessionRow, "source"> | null> {
  return db.prepare("SELECT source FROM builder_sessions WHERE envelope_id = ? ORDER BY created_at DESC LIMIT 1").bind(envelopeId).first<Pick<BuilderSessionRow, "source">>();
}

/** The INSERT of one builder session (`source` is the JSON text of what its working template was built from). */
export function builderSessionInsert(
  db: D1Database,
  row: Pick<BuilderSessionRow, "id" | "org_id" | "envelope_id" | "template_id" | "source" | "kba_required" | "provider_instance" | "created_by" | "created_at" | "expires_at">,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO builder_sessions (id, org_id, envelope_id, template_id, source, kba_required, provider_instance, created_by, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(row.id, row.org_id, row.envelope_id, row.template_id, row.source, row.kba_required, row.provider_instance, row.created_by, row.created_at, row.expires_at);
}
