import type { RequestContext } from "../lib/context";
import { forEachConcurrently } from "../lib/concurrency";
import {
  judgeIntegrityChecks,
  observeAuthoritative,
  readIntegrityStates,
  recordIntegrityChecks,
  type IntegrityObservation,
} from "../services/vault/integrity";
import {
  jobCursorAdvance,
  jobCycleComplete,
  jobLeaseRelease,
  listVaultRecordsAfter,
  startJobCycle,
  takeJobLease,
} from "../services/vault/repository";

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
  const started = await startJobCycle(ctx.db, JOB, at);
  if (!started) console.warn(JSON.stringify({ level: "warn", msg: "integrity sweep: last cycle unfinished, continuing it" }));
  return continueIntegritySweep(ctx, now, limits);
}

/**
 * R2 reads (each streamed into its own digest) in flight at once within an invocation: under the
 * Workers limit of 6 simultaneous open connections, so the D1 reads that judge each result still get
 * one, and bounding memory to this many DIGEST_SLICE_BYTES buffers.
 */
export const SWEEP_CONCURRENCY = 4;

/**
 * Every minute: re-hashes the next batch of an unfinished cycle, in vault-id order after the cursor.
 * The batch's documents are read from R2 and hashed SWEEP_CONCURRENCY at a time while one batch of
 * D1 reads fetches what judging them needs (readIntegrityStates); the results are judged together
 * (judgeIntegrityChecks), then the whole batch is recorded at once (recordIntegrityChecks): the
 * checks that change nothing but their own row, the cursor and the lease's release in one `db.batch`,
 * so a run cut short leaves the cursor where its last recorded batch ended and the next run re-hashes
 * what was not recorded. D1 queries per run: about 4 reads and 1 write per document plus 5. A check that changes something is recorded on its own as
 * before: a mismatch flips compliance check 3, re-issues the certificate and raises
 * `vault.tamper_detected`. A lease keeps two overlapping invocations from re-hashing the same documents.
 */
export async function continueIntegritySweep(ctx: RequestContext, now = new Date(), limits = DEFAULT_SWEEP_LIMITS): Promise<SweepBatch> {
  const db = ctx.db;
  const at = now.toISOString();
  const batch: SweepBatch = { ran: false, checked: 0, bytes: 0, mismatches: 0, cycleCompleted: false };
  const lease = await takeJobLease(db, JOB, new Date(now.getTime() + LEASE_MS).toISOString(), at);
  if (!lease) return batch;
  batch.ran = true;
  let leaseReleased = false;
  try {
    const results = await listVaultRecordsAfter(db, lease.cursor, limits.maxDocuments);
    // This invocation's share: documents in order while their recorded sizes fit the byte budget.
    let planned = 0;
    let plannedBytes = 0;
    while (planned < results.length && (planned === 0 || plannedBytes + results[planned]!.size_bytes <= limits.maxBytes)) {
      plannedBytes += results[planned]!.size_bytes;
      planned += 1;
    }
    const records = results.slice(0, planned);

    // The D1 reads that judge each result do not depend on it: issued now, they overlap the hashing.
    const states = readIntegrityStates(ctx, { records });
    states.catch(() => {}); // awaited below; a failure surfaces there
    const observed: (IntegrityObservation | undefined)[] = new Array(records.length);
    const stop: { failure: { index: number; error: unknown } | null } = { failure: null };
    await forEachConcurrently(
      records.map((record, index) => ({ record, index })),
      SWEEP_CONCURRENCY,
      async ({ record, index }) => {
        if (stop.failure && stop.failure.index < index) return; // an earlier document failed: the run stops there
        try {
          observed[index] = { record, observed: await observeAuthoritative(ctx.env.DOCS, record) };
        } catch (error) {
          if (!stop.failure || index < stop.failure.index) stop.failure = { index, error };
        }
      },
    );
    // Recorded: every document before the first that failed, so the cursor never passes an unchecked one.
    const { failure } = stop;
    const done = await judgeIntegrityChecks(await states, observed.slice(0, failure ? failure.index : records.length) as IntegrityObservation[]);
    for (const c of done) {
      batch.checked += 1;
      batch.bytes += c.observed.size ?? 0;
      if (!c.matched) batch.mismatches += 1;
    }
    batch.cycleCompleted = !failure && records.length === results.length && results.length < limits.maxDocuments;
    const updatedAt = new Date().toISOString();
    const alongside: D1PreparedStatement[] = [];
    if (done.length > 0) {
      alongside.push(
        jobCursorAdvance(db, JOB, { cursor: done[done.length - 1]!.record.id, processed: batch.checked, bytesProcessed: batch.bytes, failures: batch.mismatches, updatedAt }),
      );
    }
    if (batch.cycleCompleted) {
      alongside.push(jobCycleComplete(db, JOB, at, updatedAt));
    }
    // The lease goes with the run's records, unless a document failed (then the run ends as below).
    if (!failure) alongside.push(jobLeaseRelease(db, JOB));
    await recordIntegrityChecks(ctx, { source: "sweep", checks: done, alongside });
    leaseReleased = !failure;
    if (failure) throw failure.error;
  } finally {
    if (!leaseReleased) await jobLeaseRelease(db, JOB).run();
  }
  return batch;
}
