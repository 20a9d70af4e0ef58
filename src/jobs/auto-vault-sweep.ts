import type { RequestContext } from "../lib/context";
import { autoVaultIfConsented } from "../services/vault/auto-vault";
import { findJobCursor, upsertSweepCursor } from "../services/vault/repository";
import { listCompletedEnvelopesForAutoVault } from "../services/envelopes/repository";

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
  const db = ctx.db;
  const at = now.toISOString();
  const cursor = (await findJobCursor(db, JOB))?.cursor ?? "";
  // `status = 'completed'` verbatim so that the partial index applies (envelopes/repository.ts)
  const results = await listCompletedEnvelopesForAutoVault(db, {
    changedBefore: new Date(now.getTime() - AUTO_VAULT_GRACE_MS).toISOString(),
    cursor,
    limit: AUTO_VAULT_SCAN_PER_RUN,
  });

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
  await upsertSweepCursor(db, { job: JOB, at, completedAt: wrapped ? at : null, cursor: next, processed: run.vaulted.length });
  if (failures.length > 0) throw new Error(`auto-vault sweep: ${failures.length} envelope(s) failed: ${failures.join("; ")}`);
  return run;
}
