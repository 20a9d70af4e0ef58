import type { Row } from "../../db/row";
import type { GlobalDb } from "../../lib/shards";
import { listOrganizationNames } from "../organizations/repository";
import type { jobCursors, vaultCertificates, vaultConsents, vaultHolds, vaultIntegrityChecks, vaultRecords } from "../../db/schema";

// Statements on vault_records, vault_integrity_checks, vault_certificates and job_cursors (the
// integrity sweep's cursor; its table is declared beside the vault's in src/db/schema/vault.ts).

/** A vault record as D1 returns it. */
export type VaultRecordRow = Row<typeof vaultRecords>;

/** The current certificate as the integrity checks read it (everything but score, pdf_key and reason). */
export type CertificateRow = Pick<Row<typeof vaultCertificates>, "id" | "envelope_id" | "vault_id" | "version" | "body" | "compliant" | "issued_at">;

export type IntegrityCheckRow = Row<typeof vaultIntegrityChecks>;

export type JobCursorRow = Row<typeof jobCursors>;

// ---- vault_records ----

export function findVaultRecord(db: D1Database, envelopeId: string): Promise<VaultRecordRow | null> {
  return db.prepare("SELECT * FROM vault_records WHERE envelope_id = ?").bind(envelopeId).first<VaultRecordRow>();
}

export function findVaultRecordById(db: D1Database, vaultId: string): Promise<VaultRecordRow | null> {
  return db.prepare("SELECT * FROM vault_records WHERE id = ?").bind(vaultId).first<VaultRecordRow>();
}

/** The next `limit` vault records after `afterId`, in id order (the integrity sweep's walk); a destroyed record has no copy left to check. */
export async function listVaultRecordsAfter(db: D1Database, afterId: string, limit: number): Promise<VaultRecordRow[]> {
  const { results } = await db
    .prepare("SELECT * FROM vault_records WHERE id > ? AND control_status != 'destroyed' ORDER BY id LIMIT ?")
    .bind(afterId, limit)
    .all<VaultRecordRow>();
  return results;
}

/** The vault record's INSERT, for vault-in's batch. */
/** The columns of control (docs/control.md): set at vaulting (the originator controls) and moved only by control steps. */
export type ControlColumns =
  | "controller_org_id"
  | "pledgor_org_id"
  | "control_status"
  | "transfer_count"
  | "closed_at"
  | "closed_note"
  | "retain_until"
  | "destroyed_at"
  | "destruction_certificate"
  | "destruction_jws";

/** The vault record's INSERT: the vaulting organization is its originator and first controller; its first evidence record is due at once. */
export function vaultRecordInsert(db: D1Database, row: Omit<VaultRecordRow, ControlColumns | "evidence_due_at" | "pending_deletions">): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO vault_records (id, envelope_id, org_id, custodian_org_id, authoritative_key, document_hash, size_bytes, page_count,
         copy_key, copy_hash, copy_size_bytes, copy_marked, source, actor_type, actor_id, on_behalf_of, stored_at, controller_org_id, evidence_level, evidence_due_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      row.id, row.envelope_id, row.org_id, row.custodian_org_id, row.authoritative_key, row.document_hash, row.size_bytes, row.page_count,
      row.copy_key, row.copy_hash, row.copy_size_bytes, row.copy_marked, row.source, row.actor_type, row.actor_id, row.on_behalf_of, row.stored_at, row.org_id,
      row.evidence_level, row.stored_at,
    );
}

/** What the compliance checks read of an envelope's vault record, with the outcome of its newest integrity check. */
export type VaultFactsRow = Pick<
  VaultRecordRow,
  "id" | "org_id" | "document_hash" | "custodian_org_id" | "copy_marked" | "controller_org_id" | "pledgor_org_id" | "control_status" | "transfer_count" | "retain_until" | "destroyed_at"
> & { last_matched: number | null; controller_name: string | null; pledgor_name: string | null };

/**
 * The record's facts from its shard, then the controller's and pledgor's names from global in one read
 * (docs/decisions/shards.md: no statement reads a global and a shard table together). A caller that
 * passes no `global` (not yet split) gets the names read from `db`, as in a one-database deployment.
 */
export async function findVaultFacts(db: D1Database, envelopeId: string, global?: GlobalDb): Promise<VaultFactsRow | null> {
  const row = await db
    .prepare(
      `SELECT v.id, v.org_id, v.document_hash, v.custodian_org_id, v.copy_marked, v.controller_org_id, v.pledgor_org_id, v.control_status, v.transfer_count,
         v.retain_until, v.destroyed_at,
         (SELECT c.matched FROM vault_integrity_checks c WHERE c.vault_id = v.id ORDER BY c.checked_at DESC, c.rowid DESC LIMIT 1) AS last_matched,
         NULL AS controller_name, NULL AS pledgor_name
       FROM vault_records v WHERE v.envelope_id = ?`,
    )
    .bind(envelopeId)
    .first<VaultFactsRow>();
  if (!row) return null;
  const names = await listOrganizationNames((global ?? db) as GlobalDb, [row.controller_org_id, ...(row.pledgor_org_id ? [row.pledgor_org_id] : [])]);
  const nameOf = (id: string | null) => names.find((n) => n.id === id)?.name || null;
  return { ...row, controller_name: nameOf(row.controller_org_id), pledgor_name: nameOf(row.pledgor_org_id) };
}

/** The vault records among `vaultIds` (one JSON array). */
export function selectVaultRecordsOf(db: D1Database, vaultIds: string[]): D1PreparedStatement {
  return db.prepare("SELECT * FROM vault_records WHERE id IN (SELECT value FROM json_each(?))").bind(JSON.stringify(vaultIds));
}

/** findVaultFacts's row (names not read: NULL) for many envelopes at once, each with its `envelope_id`. */
export function selectVaultFactsOf(db: D1Database, envelopeIds: string[]): D1PreparedStatement {
  return db
    .prepare(
      `SELECT v.envelope_id, v.id, v.org_id, v.document_hash, v.custodian_org_id, v.copy_marked, v.controller_org_id, v.pledgor_org_id, v.control_status, v.transfer_count,
         v.retain_until, v.destroyed_at,
         (SELECT c.matched FROM vault_integrity_checks c WHERE c.vault_id = v.id ORDER BY c.checked_at DESC, c.rowid DESC LIMIT 1) AS last_matched,
         NULL AS controller_name, NULL AS pledgor_name
       FROM vault_records v WHERE v.envelope_id IN (SELECT value FROM json_each(?))`,
    )
    .bind(JSON.stringify(envelopeIds));
}

// ---- vault_integrity_checks ----

/** The newest integrity check's outcome of a vault record (one row, or none: never checked). */
export function selectLastIntegrityCheck(db: D1Database, vaultId: string): D1PreparedStatement {
  return db.prepare("SELECT matched FROM vault_integrity_checks WHERE vault_id = ? ORDER BY checked_at DESC, rowid DESC LIMIT 1").bind(vaultId);
}

export async function lastIntegrityMatched(db: D1Database, vaultId: string): Promise<boolean | null> {
  const row = await selectLastIntegrityCheck(db, vaultId).first<Pick<IntegrityCheckRow, "matched">>();
  return row ? row.matched === 1 : null;
}

export function integrityCheckInsert(db: D1Database, row: IntegrityCheckRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO vault_integrity_checks (id, vault_id, envelope_id, org_id, source, matched, expected_hash, observed_hash, observed_size_bytes, checked_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(row.id, row.vault_id, row.envelope_id, row.org_id, row.source, row.matched, row.expected_hash, row.observed_hash, row.observed_size_bytes, row.checked_at);
}

/**
 * integrityCheckInsert guarded by the state the check was judged on: the row is written only while
 * the envelope's newest check outcome (`previous`, null: none), its newest certificate version (null:
 * none) and its audit chain length are still those; otherwise it changes nothing (`changes` 0).
 */
export function guardedIntegrityCheckInsert(
  db: D1Database,
  row: IntegrityCheckRow,
  guard: { previous: boolean | null; certificateVersion: number | null; auditSeq: number },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO vault_integrity_checks (id, vault_id, envelope_id, org_id, source, matched, expected_hash, observed_hash, observed_size_bytes, checked_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
       WHERE (SELECT matched FROM vault_integrity_checks WHERE envelope_id = ? ORDER BY checked_at DESC, rowid DESC LIMIT 1) IS ?
         AND (SELECT MAX(version) FROM vault_certificates WHERE envelope_id = ?) IS ?
         AND (SELECT audit_seq FROM envelopes WHERE id = ?) = ?`,
    )
    .bind(
      row.id, row.vault_id, row.envelope_id, row.org_id, row.source, row.matched, row.expected_hash, row.observed_hash, row.observed_size_bytes, row.checked_at,
      row.envelope_id, guard.previous === null ? null : guard.previous ? 1 : 0,
      row.envelope_id, guard.certificateVersion,
      row.envelope_id, guard.auditSeq,
    );
}

// ---- vault_certificates ----

/** The envelope's current (newest) certificate, as CertificateRow. */
export function selectLatestCertificate(db: D1Database, envelopeId: string): D1PreparedStatement {
  return db
    .prepare("SELECT id, envelope_id, vault_id, version, body, compliant, issued_at FROM vault_certificates WHERE envelope_id = ? ORDER BY version DESC LIMIT 1")
    .bind(envelopeId);
}

/** selectLatestCertificate for many envelopes at once: the newest version of each that has one. */
export function selectLatestCertificatesOf(db: D1Database, envelopeIds: string[]): D1PreparedStatement {
  return db
    .prepare(
      `SELECT c.id, c.envelope_id, c.vault_id, c.version, c.body, c.compliant, c.issued_at FROM vault_certificates c
        WHERE c.envelope_id IN (SELECT value FROM json_each(?)) AND c.version = (SELECT MAX(version) FROM vault_certificates m WHERE m.envelope_id = c.envelope_id)`,
    )
    .bind(JSON.stringify(envelopeIds));
}

export function latestCertificate(db: D1Database, envelopeId: string): Promise<CertificateRow | null> {
  return selectLatestCertificate(db, envelopeId).first<CertificateRow>();
}

/** The envelope's current certificate: its JSON and the R2 key of its PDF (which a pool's move leaves to be rendered on first read). */
export function latestCertificateFiles(
  db: D1Database,
  envelopeId: string,
): Promise<Pick<Row<typeof vaultCertificates>, "body" | "pdf_key" | "envelope_id" | "vault_id"> | null> {
  return db
    .prepare("SELECT body, pdf_key, envelope_id, vault_id FROM vault_certificates WHERE envelope_id = ? ORDER BY version DESC LIMIT 1")
    .bind(envelopeId)
    .first<Pick<Row<typeof vaultCertificates>, "body" | "pdf_key" | "envelope_id" | "vault_id">>();
}

export function certificateInsert(db: D1Database, row: Row<typeof vaultCertificates>): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO vault_certificates (id, envelope_id, org_id, vault_id, version, body, compliant, score, pdf_key, reason, issued_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(row.id, row.envelope_id, row.org_id, row.vault_id, row.version, row.body, row.compliant, row.score, row.pdf_key, row.reason, row.issued_at);
}

// ---- job_cursors ----

/**
 * Starts a new cycle of `job` at `at`: creates its cursor, or resets a finished cycle's. A cycle still
 * unfinished is left as it is (false), to be continued.
 */
export async function startJobCycle(db: D1Database, job: string, at: string): Promise<boolean> {
  const started = await db
    .prepare(
      `INSERT INTO job_cursors (job, cycle_started_at, cycle_completed_at, cursor, processed, bytes_processed, failures, lease_until, updated_at)
       VALUES (?, ?, NULL, '', 0, 0, 0, NULL, ?)
       ON CONFLICT (job) DO UPDATE SET cycle_started_at = excluded.cycle_started_at, cycle_completed_at = NULL, cursor = '',
         processed = 0, bytes_processed = 0, failures = 0, updated_at = excluded.updated_at
       WHERE job_cursors.cycle_completed_at IS NOT NULL`,
    )
    .bind(job, at, at)
    .run();
  return started.meta.changes !== 0;
}

/**
 * Takes the lease of `job`'s unfinished cycle until `leaseUntil` unless another invocation holds it
 * (a lease expired at `at` is free); its cursor, or null when there is no cycle to run or no lease.
 */
export function takeJobLease(db: D1Database, job: string, leaseUntil: string, at: string): Promise<Pick<JobCursorRow, "cursor"> | null> {
  return db
    .prepare(
      `UPDATE job_cursors SET lease_until = ? WHERE job = ? AND cycle_completed_at IS NULL AND (lease_until IS NULL OR lease_until <= ?)
       RETURNING cursor`,
    )
    .bind(leaseUntil, job, at)
    .first<Pick<JobCursorRow, "cursor">>();
}

/** Moves `job`'s cursor to `cursor` and adds a run's counts. */
export function jobCursorAdvance(
  db: D1Database,
  job: string,
  input: { cursor: string; processed: number; bytesProcessed: number; failures: number; updatedAt: string },
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE job_cursors SET cursor = ?, processed = processed + ?, bytes_processed = bytes_processed + ?, failures = failures + ?, updated_at = ?
       WHERE job = ?`,
    )
    .bind(input.cursor, input.processed, input.bytesProcessed, input.failures, input.updatedAt, job);
}

export function jobCycleComplete(db: D1Database, job: string, completedAt: string, updatedAt: string): D1PreparedStatement {
  return db.prepare("UPDATE job_cursors SET cycle_completed_at = ?, updated_at = ? WHERE job = ?").bind(completedAt, updatedAt, job);
}

export function jobLeaseRelease(db: D1Database, job: string): D1PreparedStatement {
  return db.prepare("UPDATE job_cursors SET lease_until = NULL WHERE job = ?").bind(job);
}

// ---- appended by bulk send (helper B) ----

/** The auto-vault consent of a new bulk-send envelope: on, with the batch's acceptance stamp. */
export function bulkVaultConsentInsert(
  db: D1Database,
  input: { envelopeId: string; orgId: string; termsAcceptedAt: string; termsAcceptedBy: string | null; at: string },
): D1PreparedStatement {
  return db
    .prepare("INSERT INTO vault_consents (envelope_id, org_id, auto_vault_enabled, terms_accepted_at, terms_accepted_by, updated_at) VALUES (?, ?, 1, ?, ?, ?)")
    .bind(input.envelopeId, input.orgId, input.termsAcceptedAt, input.termsAcceptedBy, input.at);
}

/** The sender's auto-vault consent on an envelope, set or withdrawn (who accepted the terms, and when). */
export function vaultConsentUpsert(
  db: D1Database,
  input: { envelopeId: string; orgId: string; enabled: boolean; acceptedAt: string | null; acceptedBy: string | null; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO vault_consents (envelope_id, org_id, auto_vault_enabled, terms_accepted_at, terms_accepted_by, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (envelope_id) DO UPDATE SET auto_vault_enabled = excluded.auto_vault_enabled,
         terms_accepted_at = excluded.terms_accepted_at, terms_accepted_by = excluded.terms_accepted_by, updated_at = excluded.updated_at`,
    )
    .bind(input.envelopeId, input.orgId, input.enabled ? 1 : 0, input.acceptedAt, input.acceptedBy, input.at);
}

export function getVaultConsent(db: D1Database, envelopeId: string) {
  return db
    .prepare("SELECT auto_vault_enabled, terms_accepted_at, terms_accepted_by FROM vault_consents WHERE envelope_id = ?")
    .bind(envelopeId)
    .first<Pick<Row<typeof vaultConsents>, "auto_vault_enabled" | "terms_accepted_at" | "terms_accepted_by">>();
}

/**
 * What auto-vault decides on: the envelope's status and source with its consent, in one read.
 * SQL exception: the envelopes row joined here is read-only and unscoped by organization, because
 * the hook runs for a system actor after the signer's commit (its caller knows only the id).
 */
export function readAutoVaultFacts(db: D1Database, envelopeId: string) {
  return db
    .prepare(
      `SELECT e.org_id, e.status, e.document_source, e.signed_at, c.auto_vault_enabled, c.terms_accepted_by
       FROM envelopes e LEFT JOIN vault_consents c ON c.envelope_id = e.id WHERE e.id = ?`,
    )
    .bind(envelopeId)
    .first<{ org_id: string; status: string; document_source: string; signed_at: string | null; auto_vault_enabled: number | null; terms_accepted_by: string | null }>();
}

// ---- job_cursors, for the auto-vault sweep (jobs/auto-vault-sweep.ts) ----

/** A job's cursor ("" when the job has none yet: the caller defaults). */
export function findJobCursor(db: D1Database, job: string): Promise<Pick<JobCursorRow, "cursor"> | null> {
  return db.prepare("SELECT cursor FROM job_cursors WHERE job = ?").bind(job).first<Pick<JobCursorRow, "cursor">>();
}

/** Records a sweep run: the next cursor, the count processed, and the cycle's start and end. */
export function upsertSweepCursor(
  db: D1Database,
  input: { job: string; at: string; completedAt: string | null; cursor: string; processed: number },
): Promise<D1Result> {
  return db
    .prepare(
      `INSERT INTO job_cursors (job, cycle_started_at, cycle_completed_at, cursor, processed, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (job) DO UPDATE SET cursor = excluded.cursor, processed = job_cursors.processed + excluded.processed,
         cycle_started_at = CASE WHEN job_cursors.cursor = '' THEN excluded.cycle_started_at ELSE job_cursors.cycle_started_at END,
         cycle_completed_at = excluded.cycle_completed_at, updated_at = excluded.updated_at`,
    )
    .bind(input.job, input.at, input.completedAt, input.cursor, input.processed, input.at)
    .run();
}

// ---- control of the authoritative copy (docs/control.md) ----

export type ControlChange = Partial<Pick<VaultRecordRow, "controller_org_id" | "pledgor_org_id" | "control_status" | "closed_at" | "closed_note" | "retain_until">> & {
  /** an accepted transfer counts one */
  transferAccepted?: boolean;
};

/**
 * Moves control of a record, guarded on the controller, pledgor and status the step was planned on:
 * a change the step did not see leaves the row alone (the envelope chain's advance in the same batch
 * already refuses a stale plan; this keeps the row from ever disagreeing with its chain).
 */
export function controlUpdate(db: D1Database, record: Pick<VaultRecordRow, "id" | "controller_org_id" | "pledgor_org_id" | "control_status">, change: ControlChange): D1PreparedStatement {
  const next = {
    controller_org_id: change.controller_org_id ?? record.controller_org_id,
    pledgor_org_id: change.pledgor_org_id === undefined ? record.pledgor_org_id : change.pledgor_org_id,
    control_status: change.control_status ?? record.control_status,
  };
  return db
    .prepare(
      `UPDATE vault_records SET controller_org_id = ?, pledgor_org_id = ?, control_status = ?, transfer_count = transfer_count + ?,
         closed_at = COALESCE(?, closed_at), closed_note = COALESCE(?, closed_note), retain_until = COALESCE(?, retain_until)
       WHERE id = ? AND controller_org_id = ? AND pledgor_org_id IS ? AND control_status = ?`,
    )
    .bind(
      next.controller_org_id,
      next.pledgor_org_id,
      next.control_status,
      change.transferAccepted ? 1 : 0,
      change.closed_at ?? null,
      change.closed_note ?? null,
      change.retain_until ?? null,
      record.id,
      record.controller_org_id,
      record.pledgor_org_id,
      record.control_status,
    );
}

export type BookRole = "controller" | "originator" | "pledgor";

/** The records an organization holds in one role, newest first (GET /partner/vault). */
export async function listBook(db: D1Database, input: { orgId: string; role: BookRole; limit: number; offset: number }): Promise<{ rows: VaultRecordRow[]; total: number }> {
  const column = input.role === "controller" ? "controller_org_id" : input.role === "pledgor" ? "pledgor_org_id" : "org_id";
  const [rows, count] = await db.batch<unknown>([
    db.prepare(`SELECT * FROM vault_records WHERE ${column} = ? ORDER BY stored_at DESC, id DESC LIMIT ? OFFSET ?`).bind(input.orgId, input.limit, input.offset),
    db.prepare(`SELECT COUNT(*) AS total FROM vault_records WHERE ${column} = ?`).bind(input.orgId),
  ]);
  return { rows: rows!.results as VaultRecordRow[], total: (count!.results[0] as { total: number } | undefined)?.total ?? 0 };
}

/** A vault record's copy was made again (re-serialized): its hash and size follow the stored object. */
export async function recordRemadeCopy(db: D1Database, input: { vaultId: string; copyHash: string; copySizeBytes: number }): Promise<void> {
  await db.prepare("UPDATE vault_records SET copy_hash = ?, copy_size_bytes = ? WHERE id = ?").bind(input.copyHash, input.copySizeBytes, input.vaultId).run();
}

// ---- retention, destruction and legal holds (docs/control.md "Retention", "Legal holds") ----

export type HoldRow = Row<typeof vaultHolds>;

/** The record's unreleased legal holds, oldest first. */
export function selectActiveHolds(db: D1Database, vaultId: string): D1PreparedStatement {
  return db.prepare("SELECT * FROM vault_holds WHERE vault_id = ? AND released_at IS NULL ORDER BY placed_at, id").bind(vaultId);
}

export async function listActiveHolds(db: D1Database, vaultId: string): Promise<HoldRow[]> {
  return (await selectActiveHolds(db, vaultId).all<HoldRow>()).results;
}

export function findHold(db: D1Database, vaultId: string, holdId: string): Promise<HoldRow | null> {
  return db.prepare("SELECT * FROM vault_holds WHERE id = ? AND vault_id = ?").bind(holdId, vaultId).first<HoldRow>();
}

/** A new hold, for the batch that records it on the envelope's chain; only while the record is not destroyed. */
export function holdInsert(db: D1Database, row: Omit<HoldRow, "released_at" | "released_by_actor_id">): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO vault_holds (id, vault_id, envelope_id, placed_by_org_id, placed_by_actor_id, reason, reference, placed_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM vault_records WHERE id = ? AND control_status != 'destroyed')`,
    )
    .bind(row.id, row.vault_id, row.envelope_id, row.placed_by_org_id, row.placed_by_actor_id, row.reason, row.reference, row.placed_at, row.vault_id);
}

/** Releases a hold that is still in force. */
export function holdRelease(db: D1Database, input: { holdId: string; actorId: string | null; at: string }): D1PreparedStatement {
  return db.prepare("UPDATE vault_holds SET released_at = ?, released_by_actor_id = ? WHERE id = ? AND released_at IS NULL").bind(input.at, input.actorId, input.holdId);
}

/**
 * The record becomes `destroyed`, guarded in SQL on what allows it (so a hold placed or a status changed since the
 * plan leaves it alone): closed, past `retain_until`, and no hold in force. Its hashes, chain and certificates stay.
 */
export function destroyedUpdate(
  db: D1Database,
  input: { vaultId: string; at: string; asOf: string; certificate: Record<string, unknown>; jws: string; pendingDeletions: string[] },
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE vault_records SET control_status = 'destroyed', destroyed_at = ?, destruction_certificate = ?, destruction_jws = ?, pending_deletions = ?
       WHERE id = ? AND control_status IN ('paid_off', 'paper_out') AND retain_until IS NOT NULL AND retain_until <= ?
         AND NOT EXISTS (SELECT 1 FROM vault_holds WHERE vault_id = ? AND released_at IS NULL)`,
    )
    .bind(input.at, JSON.stringify(input.certificate), input.jws, input.pendingDeletions.length > 0 ? JSON.stringify(input.pendingDeletions) : null, input.vaultId, input.asOf, input.vaultId);
}

/**
 * Closed records controlled by one of `controllerOrgIds` (JSON list) whose retention passed by `at` and that no hold
 * keeps (the destruction cron's candidates), oldest retention first.
 */
export async function listDestroyableRecords(db: D1Database, input: { at: string; controllerOrgIds: string[]; limit: number }): Promise<Pick<VaultRecordRow, "id" | "controller_org_id">[]> {
  const { results } = await db
    .prepare(
      `SELECT v.id, v.controller_org_id FROM vault_records v
       WHERE v.retain_until IS NOT NULL AND v.retain_until <= ? AND v.control_status IN ('paid_off', 'paper_out')
         AND v.controller_org_id IN (SELECT value FROM json_each(?))
         AND NOT EXISTS (SELECT 1 FROM vault_holds h WHERE h.vault_id = v.id AND h.released_at IS NULL)
       ORDER BY v.retain_until, v.id LIMIT ?`,
    )
    .bind(input.at, JSON.stringify(input.controllerOrgIds), input.limit)
    .all<Pick<VaultRecordRow, "id" | "controller_org_id">>();
  return results;
}

/** The records of this shard whose destruction still has objects to delete, for the cron's retry (services/retention). */
export async function listPendingDeletions(db: D1Database, limit: number): Promise<{ id: string; keys: string[] }[]> {
  const { results } = await db
    // `pending_deletions IS NOT NULL` verbatim: the partial index vault_records_pending_deletions_idx
    .prepare("SELECT id, pending_deletions FROM vault_records WHERE pending_deletions IS NOT NULL ORDER BY id LIMIT ?")
    .bind(limit)
    .all<{ id: string; pending_deletions: string }>();
  return results.map((r) => ({ id: r.id, keys: JSON.parse(r.pending_deletions) as string[] }));
}

/** Nothing left to delete: clears the list, only if it is still the one that was deleted. */
export async function clearPendingDeletions(db: D1Database, vaultId: string, keys: string[]): Promise<void> {
  await db.prepare("UPDATE vault_records SET pending_deletions = NULL WHERE id = ? AND pending_deletions = ?").bind(vaultId, JSON.stringify(keys)).run();
}
