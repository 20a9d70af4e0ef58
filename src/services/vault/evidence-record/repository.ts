import type { Row } from "../../../db/row";
import type { vaultEvidenceRecords } from "../../../db/schema";
import type { VaultRecordRow } from "../repository";

// Statements on vault_evidence_records: one row per version of a record's RFC 4998 evidence record.

export type EvidenceRecordRow = Row<typeof vaultEvidenceRecords>;

/** A vault record due for an evidence record: none yet (`current` null), or its newest one past `renew_by`. */
export type DueRecord = {
  record: Pick<VaultRecordRow, "id" | "envelope_id" | "org_id" | "authoritative_key" | "document_hash">;
  current: EvidenceRecordRow | null;
};

type DueRow = Pick<VaultRecordRow, "id" | "envelope_id" | "org_id" | "authoritative_key" | "document_hash"> & {
  er_id: string | null;
  er_record_key: string | null;
  er_record_sha256: string | null;
  er_timestamp_count: number | null;
  er_renew_by: string | null;
  er_created_at: string | null;
};

/**
 * Up to `limit` vault records that need the renewal job: those without an evidence record first (by
 * vaulting time), then those whose newest record's `renew_by` is at or before `now` (soonest first).
 */
export async function listDueEvidenceRecords(db: D1Database, now: string, limit: number): Promise<DueRecord[]> {
  const { results } = await db
    .prepare(
      // SQL exception: the vault record and its newest evidence record in one read, so the job finds
      // what is due in one query per run (the evidence records are the vault's own table). The due
      // records come from vault_records_evidence_due_idx (a range of the index, not a scan of the vault):
      // evidence_due_at is stored_at until the first record, then the newest version's renew_by.
      `SELECT v.id, v.envelope_id, v.org_id, v.authoritative_key, v.document_hash,
         e.id AS er_id, e.record_key AS er_record_key, e.record_sha256 AS er_record_sha256,
         e.timestamp_count AS er_timestamp_count, e.renew_by AS er_renew_by, e.created_at AS er_created_at
       FROM vault_records v
       LEFT JOIN vault_evidence_records e ON e.vault_id = v.id
         AND e.timestamp_count = (SELECT MAX(x.timestamp_count) FROM vault_evidence_records x WHERE x.vault_id = v.id)
       WHERE v.evidence_due_at <= ?
       ORDER BY v.evidence_due_at, v.id
       LIMIT ?`,
    )
    .bind(now, limit)
    .all<DueRow>();
  return results.map((r) => ({
    record: { id: r.id, envelope_id: r.envelope_id, org_id: r.org_id, authoritative_key: r.authoritative_key, document_hash: r.document_hash },
    current:
      r.er_id === null
        ? null
        : {
            id: r.er_id,
            vault_id: r.id,
            org_id: r.org_id,
            record_key: r.er_record_key!,
            record_sha256: r.er_record_sha256!,
            timestamp_count: r.er_timestamp_count!,
            renew_by: r.er_renew_by!,
            created_at: r.er_created_at!,
          },
  }));
}

/** The vault record's current (newest) evidence record, or null. */
export function latestEvidenceRecord(db: D1Database, vaultId: string): Promise<EvidenceRecordRow | null> {
  return db
    .prepare("SELECT * FROM vault_evidence_records WHERE vault_id = ? ORDER BY timestamp_count DESC, created_at DESC LIMIT 1")
    .bind(vaultId)
    .first<EvidenceRecordRow>();
}

/** One version of the vault record's evidence record, by id. */
export function findEvidenceRecord(db: D1Database, vaultId: string, id: string): Promise<EvidenceRecordRow | null> {
  return db.prepare("SELECT * FROM vault_evidence_records WHERE vault_id = ? AND id = ?").bind(vaultId, id).first<EvidenceRecordRow>();
}

/** Every version of the vault record's evidence record, oldest first. */
export async function listEvidenceRecords(db: D1Database, vaultId: string): Promise<EvidenceRecordRow[]> {
  const { results } = await db
    .prepare("SELECT * FROM vault_evidence_records WHERE vault_id = ? ORDER BY timestamp_count, created_at")
    .bind(vaultId)
    .all<EvidenceRecordRow>();
  return results;
}

/**
 * A new version's row, written only while the record's newest version still has `previousCount`
 * timestamps (0: none), so two renewals of the same version never both land.
 */
export function evidenceRecordInsert(db: D1Database, row: EvidenceRecordRow, previousCount: number): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO vault_evidence_records (id, vault_id, org_id, record_key, record_sha256, timestamp_count, renew_by, created_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?
       WHERE COALESCE((SELECT MAX(timestamp_count) FROM vault_evidence_records WHERE vault_id = ?), 0) = ?`,
    )
    .bind(row.id, row.vault_id, row.org_id, row.record_key, row.record_sha256, row.timestamp_count, row.renew_by, row.created_at, row.vault_id, previousCount);
}

/**
 * The record's next due time, from its newest evidence record (whichever of two racing renewals
 * landed): goes in the batch after `evidenceRecordInsert`.
 */
export function evidenceDueUpdate(db: D1Database, vaultId: string): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE vault_records SET evidence_due_at = COALESCE(
         (SELECT renew_by FROM vault_evidence_records WHERE vault_id = ?1 ORDER BY timestamp_count DESC LIMIT 1), evidence_due_at)
       WHERE id = ?1`,
    )
    .bind(vaultId);
}
