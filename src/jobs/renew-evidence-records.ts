import type { RequestContext } from "../lib/context";
import { listDueEvidenceRecords } from "../services/vault/evidence-record/repository";
import { renewEvidenceRecord, RENEWAL_MARGIN_DAYS } from "../services/vault/evidence-record/renew-evidence-record";

/**
 * Records handled per run: each costs one TSA request, one R2 write and one D1 batch (~1 s at worst
 * against a slow TSA), well inside a scheduled invocation; at one run a minute that is 14,400 a day.
 */
export const RENEW_EVIDENCE_RECORDS_BATCH = 10;

export type RenewalRun = { ran: boolean; created: number; renewed: number; waiting: number };

/**
 * Every minute (docs/evidence.md), when SEAL_TSA_URL is set: each vaulted record without an RFC 4998
 * evidence record gets its first one, and each whose `renew_by` has passed at `now` is renewed (one
 * more archive timestamp over the previous one), a bounded batch per run. A TSA outage or a failure of
 * one record is logged and leaves that record for the next run; the others go on.
 */
export async function renewEvidenceRecords(
  ctx: RequestContext,
  now = new Date(),
  opts: { limit?: number; marginDays?: number } = {},
): Promise<RenewalRun> {
  const run: RenewalRun = { ran: false, created: 0, renewed: 0, waiting: 0 };
  if (!ctx.env.SEAL_TSA_URL) return run;
  run.ran = true;
  const due = await listDueEvidenceRecords(ctx.db, now.toISOString(), opts.limit ?? RENEW_EVIDENCE_RECORDS_BATCH);
  for (const item of due) {
    try {
      const result = await renewEvidenceRecord(ctx, { ...item, marginDays: opts.marginDays ?? RENEWAL_MARGIN_DAYS });
      if (result.outcome === "created") run.created += 1;
      else if (result.outcome === "renewed") run.renewed += 1;
      else {
        run.waiting += 1;
        if (result.outcome === "tsa_unavailable" || result.outcome === "failed") {
          console.warn(JSON.stringify({ level: "warn", msg: "evidence record not renewed; left for the next run", vault_id: item.record.id, outcome: result.outcome, reason: result.reason }));
        }
      }
    } catch (err) {
      run.waiting += 1;
      console.error(JSON.stringify({ level: "error", msg: "evidence record renewal failed; left for the next run", vault_id: item.record.id, error: err instanceof Error ? err.message : String(err) }));
    }
  }
  return run;
}
