import type { GlobalDb } from "../../lib/shards";
import type { Row } from "../../db/row";
import type { esignDisclosures, Locale } from "../../db/schema";

export type EsignDisclosureRow = Row<typeof esignDisclosures>;

const COLUMNS = "id, org_id, locale, version, required, text, paper_copy_contact, withdrawal_instructions, sha256, created_by, created_at";

/** The organization's newest saved version in `locale`; null: none saved (the shipped default of that locale applies). */
export function findCurrentDisclosure(db: GlobalDb, orgId: string, locale: Locale): Promise<EsignDisclosureRow | null> {
  return db
    .prepare(`SELECT ${COLUMNS} FROM esign_disclosures WHERE org_id = ? AND locale = ? ORDER BY version DESC LIMIT 1`)
    .bind(orgId, locale)
    .first<EsignDisclosureRow>();
}

/** The version an envelope pinned at create (`envelopes.disclosure_id`). */
export function findDisclosure(db: GlobalDb, orgId: string, id: string): Promise<EsignDisclosureRow | null> {
  return db.prepare(`SELECT ${COLUMNS} FROM esign_disclosures WHERE id = ? AND org_id = ?`).bind(id, orgId).first<EsignDisclosureRow>();
}

/** A new version; two saves racing for the same number collide on (org_id, version) (isDisclosureVersionConflict). */
export function disclosureInsert(db: GlobalDb, row: EsignDisclosureRow): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO esign_disclosures (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .bind(row.id, row.org_id, row.locale, row.version, row.required, row.text, row.paper_copy_contact, row.withdrawal_instructions, row.sha256, row.created_by, row.created_at);
}

/**
 * The shipped default stored as the organization's version 0 of its locale, only when that locale has no version yet: an
 * envelope asking for consent pins the text its signers are shown (compose/create-envelope.ts), so a
 * later change of the shipped text never changes what an earlier signer agreed to.
 */
export function defaultDisclosureInsertIfNone(db: GlobalDb, row: EsignDisclosureRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT OR IGNORE INTO esign_disclosures (${COLUMNS})
       SELECT ?, ?, ?, 0, ?, ?, ?, ?, ?, NULL, ? WHERE NOT EXISTS (SELECT 1 FROM esign_disclosures WHERE org_id = ?2 AND locale = ?3)`,
    )
    .bind(row.id, row.org_id, row.locale, row.required, row.text, row.paper_copy_contact, row.withdrawal_instructions, row.sha256, row.created_at);
}

export const isDisclosureVersionConflict = (err: unknown) =>
  err instanceof Error && /UNIQUE constraint failed: esign_disclosures\.org_id, esign_disclosures\.locale, esign_disclosures\.version/.test(err.message);
