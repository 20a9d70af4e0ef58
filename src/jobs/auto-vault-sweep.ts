import type { RequestContext } from "../lib/context";
import { autoVaultIfConsented } from "../services/vault/auto-vault";

const JOB = "auto-vault-sweep";
/** Completed envelopes read per run, whether due or not: bounds the rows a minute costs. */
export const AUTO_VAULT_SCAN_PER_RUN = 500;
/** Vault-ins per run: each marks a copy and renders a certificate, the CPU-heavy part of the service. */
export const AUTO_VAULT_PER_RUN = 10;
/**
 * An envelope is left alone this long after its last change: the request that completed it (or the
 * Stripe notification that paid it) is still running its own auto-vault.
 */
export const AUTO_VAULT_GRACE_MS = 2 * 60_000;

export type AutoVaultSweepRun = { scanned: number; due: number; vaulted: string[]; deferred: string[]; wrapped: boolean };

/**
 * Every minute: the safety net under auto-vault. Completion (and the Stripe notification that pays a
 * Sign + Pay envelope) vaults a consented envelope in the request itself; if that request died, or
 * vaulting failed on the way (storage down), the envelope would stay `completed` for good. This job
 * finds envelopes that auto-vault should have vaulted — `completed`, e-sign, with auto-vault consent,
 * no unpaid requested payment, unchanged for AUTO_VAULT_GRACE_MS — and runs the same hook on them,
 * which re-checks every rule itself.
 *
 * It walks completed envelopes in id order through a partial index (`envelopes_completed_idx`,
 * migration 0016) from a cursor kept in `job_cursors`, so each run reads a bounded slice and an
 * envelope the hook refuses for good (a signed document that no longer matches its hash) cannot starve
 * the ones after it. Two runs, or a run and a request, vaulting the same envelope are safe: exactly one
 * vault-in commits and the other answers with the vaulted envelope (vaultDocument).
 */
export async function autoVaultSweep(ctx: RequestContext, now = new Date()): Promise<AutoVaultSweepRun> {
  const db = ctx.env.DB;
  const at = now.toISOString();
  const cursor = (await db.prepare("SELECT cursor FROM job_cursors WHERE job = ?").bind(JOB).first<{ cursor: string }>())?.cursor ?? "";
  const { results } = await db
    .prepare(
      // `status = 'completed'` verbatim so that the partial index applies; consent, paper and payment are
      // read per row through their own keys (vault_consents' primary key, payments' unique envelope_id).
      `SELECT e.id,
         (e.updated_at <= ? AND e.document_source != 'upload'
          AND EXISTS (SELECT 1 FROM vault_consents c WHERE c.envelope_id = e.id AND c.auto_vault_enabled = 1)
          AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.envelope_id = e.id AND p.status != 'paid')) AS due
       FROM envelopes e INDEXED BY envelopes_completed_idx
       WHERE e.status = 'completed' AND e.id > ?
       ORDER BY e.id LIMIT ?`,
    )
    .bind(new Date(now.getTime() - AUTO_VAULT_GRACE_MS).toISOString(), cursor, AUTO_VAULT_SCAN_PER_RUN)
    .all<{ id: string; due: number }>();

  const due = results.filter((r) => r.due === 1);
  const attempted = due.slice(0, AUTO_VAULT_PER_RUN);
  // More due than this run vaults: the next run starts after the last one attempted. Otherwise after
  // the slice read, or from the start once the slice reached the end.
  const wrapped = due.length <= AUTO_VAULT_PER_RUN && results.length < AUTO_VAULT_SCAN_PER_RUN;
  const next = wrapped ? "" : due.length > AUTO_VAULT_PER_RUN ? attempted[attempted.length - 1]!.id : results[results.length - 1]!.id;

  const run: AutoVaultSweepRun = { scanned: results.length, due: due.length, vaulted: [], deferred: [], wrapped };
  const failures: string[] = [];
  for (const { id } of attempted) {
    try {
      const outcome = await autoVaultIfConsented(ctx, { envelopeId: id });
      (outcome.vaulted ? run.vaulted : run.deferred).push(id);
    } catch (err) {
      // Storage down for one envelope must not keep the others, nor the cursor, from moving.
      failures.push(`${id}: ${String(err)}`);
    }
  }
  await db
    .prepare(
      `INSERT INTO job_cursors (job, cycle_started_at, cycle_completed_at, cursor, processed, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (job) DO UPDATE SET cursor = excluded.cursor, processed = job_cursors.processed + excluded.processed,
         cycle_started_at = CASE WHEN job_cursors.cursor = '' THEN excluded.cycle_started_at ELSE job_cursors.cycle_started_at END,
         cycle_completed_at = excluded.cycle_completed_at, updated_at = excluded.updated_at`,
    )
    .bind(JOB, at, wrapped ? at : null, next, run.vaulted.length, at)
    .run();
  if (failures.length > 0) throw new Error(`auto-vault sweep: ${failures.length} envelope(s) failed: ${failures.join("; ")}`);
  return run;
}
