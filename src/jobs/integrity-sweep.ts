import type { RequestContext } from "../lib/context";
import { observeAuthoritative, recordIntegrityCheck } from "../services/vault/integrity";
import type { VaultRecordRow } from "../services/vault/repository";

/** The weekly trigger in wrangler.toml that starts a cycle of the sweep. */
export const INTEGRITY_SWEEP_CRON = "0 3 * * 0";
const JOB = "vault_integrity_sweep";

export type SweepLimits = {
  /** documents re-hashed per invocation at most */
  maxDocuments: number;
  /** bytes re-hashed per invocation at most (one document is always taken, however large) */
  maxBytes: number;
};

/**
 * Sized for a scheduled invocation's limits: 25 documents or 256 MiB of re-hashing (at ~0.5-1 GB/s of
 * SHA-256, well under a second of CPU). At one batch a minute a cycle covers 36,000 documents or
 * 360 GiB a day, so a weekly cycle finishes within the week for any vault up to ~250,000 documents.
 */
export const DEFAULT_SWEEP_LIMITS: SweepLimits = { maxDocuments: 25, maxBytes: 256 * 1024 * 1024 };
/** An invocation that dies holding the lease blocks the sweep at most this long. */
const LEASE_MS = 10 * 60_000;

export type SweepBatch = { ran: boolean; checked: number; bytes: number; mismatches: number; cycleCompleted: boolean };

/**
 * Weekly (INTEGRITY_SWEEP_CRON): starts a new cycle over every vaulted document and runs its first
 * batch. A cycle still unfinished from the week before is continued instead of restarted, so no
 * document is skipped however large the vault grows.
 */
export async function startIntegritySweep(ctx: RequestContext, now = new Date(), limits = DEFAULT_SWEEP_LIMITS): Promise<SweepBatch> {
  const at = now.toISOString();
  const started = await ctx.env.DB.prepare(
    `INSERT INTO job_cursors (job, cycle_started_at, cycle_completed_at, cursor, processed, bytes_processed, failures, lease_until, updated_at)
     VALUES (?, ?, NULL, '', 0, 0, 0, NULL, ?)
     ON CONFLICT (job) DO UPDATE SET cycle_started_at = excluded.cycle_started_at, cycle_completed_at = NULL, cursor = '',
       processed = 0, bytes_processed = 0, failures = 0, updated_at = excluded.updated_at
     WHERE job_cursors.cycle_completed_at IS NOT NULL`,
  )
    .bind(JOB, at, at)
    .run();
  if (started.meta.changes === 0) console.warn(JSON.stringify({ level: "warn", msg: "integrity sweep: last cycle unfinished, continuing it" }));
  return continueIntegritySweep(ctx, now, limits);
}

/**
 * Every minute: re-hashes the next batch of an unfinished cycle, in vault-id order after the cursor.
 * The cursor moves after each document, so a run cut short resumes where it stopped; a lease keeps
 * two overlapping invocations from re-hashing the same documents. Each result is recorded per
 * document (recordIntegrityCheck): a mismatch flips compliance check 3, re-issues the certificate
 * and raises `vault.tamper_detected`.
 */
export async function continueIntegritySweep(ctx: RequestContext, now = new Date(), limits = DEFAULT_SWEEP_LIMITS): Promise<SweepBatch> {
  const db = ctx.env.DB;
  const at = now.toISOString();
  const batch: SweepBatch = { ran: false, checked: 0, bytes: 0, mismatches: 0, cycleCompleted: false };
  const lease = await db
    .prepare(
      `UPDATE job_cursors SET lease_until = ? WHERE job = ? AND cycle_completed_at IS NULL AND (lease_until IS NULL OR lease_until <= ?)
       RETURNING cursor`,
    )
    .bind(new Date(now.getTime() + LEASE_MS).toISOString(), JOB, at)
    .first<{ cursor: string }>();
  if (!lease) return batch;
  batch.ran = true;
  try {
    const { results } = await db
      .prepare("SELECT * FROM vault_records WHERE id > ? ORDER BY id LIMIT ?")
      .bind(lease.cursor, limits.maxDocuments)
      .all<VaultRecordRow>();
    let exhausted = results.length < limits.maxDocuments;
    for (const record of results) {
      if (batch.checked > 0 && batch.bytes + record.size_bytes > limits.maxBytes) {
        exhausted = false;
        break;
      }
      const observed = await observeAuthoritative(ctx.env.DOCS, record);
      const { matched } = await recordIntegrityCheck(ctx, { record, source: "sweep", observed });
      batch.checked += 1;
      batch.bytes += observed.size ?? 0;
      if (!matched) batch.mismatches += 1;
      await db
        .prepare(
          `UPDATE job_cursors SET cursor = ?, processed = processed + 1, bytes_processed = bytes_processed + ?, failures = failures + ?, updated_at = ?
           WHERE job = ?`,
        )
        .bind(record.id, observed.size ?? 0, matched ? 0 : 1, new Date().toISOString(), JOB)
        .run();
    }
    if (exhausted) {
      batch.cycleCompleted = true;
      await db.prepare("UPDATE job_cursors SET cycle_completed_at = ?, updated_at = ? WHERE job = ?").bind(at, at, JOB).run();
    }
  } finally {
    await db.prepare("UPDATE job_cursors SET lease_until = NULL WHERE job = ?").bind(JOB).run();
  }
  return batch;
}
