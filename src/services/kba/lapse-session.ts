import { KBA_MAX_ATTEMPTS, type KbaCheckStatus } from "../../db/schema/kba";
import type { RequestContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import type { RequestOrigin } from "../signing/signer-actor";
import { commitKba } from "./commit";
import { loadKbaSigner } from "./load-kba-signer";
import { outcomeStatements } from "./record-outcome";
import type { KbaSessionRow } from "./repository";

/**
 * Settles a question set that lapsed unanswered as a used attempt, scored `failed` (docs/kba.md).
 * Were a lapse free, a link holder could let sets lapse and fetch fresh ones forever, each a billable
 * provider call, shopping for questions they can answer. On the last attempt the check becomes
 * `failed` and the outcome is recorded and billed like wrong answers (the provider built both sets).
 *
 * The first statement is the guard: the set still `open` and the check still `required` at the
 * attempt before this set's, else the status turns NULL and the batch fails whole, so a lapse is
 * counted once however many requests notice it. Returns the check's status after the lapse, or null
 * when another request settled the set or the check first (the caller reads the state again).
 */
export async function lapseSession(ctx: RequestContext, input: { signerId: string; session: KbaSessionRow; origin: RequestOrigin }): Promise<KbaCheckStatus | null> {
  const { session } = input;
  const final = session.attempt >= KBA_MAX_ATTEMPTS;
  const status: KbaCheckStatus = final ? "failed" : "required";
  const committed = await commitKba(ctx, async () => {
    const fresh = final ? await loadKbaSigner(ctx, input.signerId) : null;
    const now = nowIso();
    return [
      ctx.db
        .prepare(
          `UPDATE kba_sessions SET status = CASE WHEN status = 'open' AND EXISTS (SELECT 1 FROM kba_checks WHERE signer_id = ? AND status = 'required' AND attempts_used = ?) THEN 'expired' END,
             outcome = 'failed', scored_at = ? WHERE id = ?`,
        )
        .bind(session.signer_id, session.attempt - 1, now, session.id),
      ctx.db.prepare("UPDATE kba_checks SET status = ?, attempts_used = ?, updated_at = ? WHERE signer_id = ?").bind(status, session.attempt, now, session.signer_id),
      ...(fresh
        ? await outcomeStatements(ctx, {
            envelope: fresh.sc.envelope,
            signer: fresh.sc.signer,
            outcome: "failed",
            provider: session.provider,
            providerSessionId: session.provider_session_id,
            attempts: session.attempt,
            origin: input.origin,
            at: now,
          })
        : []),
    ];
  });
  return committed ? status : null;
}
