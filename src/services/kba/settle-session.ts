import type { KbaCheckStatus } from "../../db/schema/kba";
import type { RequestContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import type { RequestOrigin } from "../signing/signer-actor";
import { loadKbaSigner } from "./load-kba-signer";
import { outcomeStatements } from "./record-outcome";
import type { KbaSessionRow } from "./repository";

/**
 * The batch that settles a question set, answered (`scored`) or lapsed (`expired`), and moves the check
 * to `checkStatus` at the set's attempt; a final status (`passed`, `failed`) also records and bills the
 * outcome. The first statement is the guard: the set still `open` and the check still `required` at
 * the attempt before this set's, else the status turns NULL and the batch fails whole, so a set is
 * settled once however many requests race to settle it.
 */
export async function settleSessionStatements(
  ctx: RequestContext,
  input: { signerId: string; session: KbaSessionRow; settledAs: "scored" | "expired"; outcome: "passed" | "failed"; checkStatus: KbaCheckStatus; provider: string; origin: RequestOrigin },
): Promise<D1PreparedStatement[]> {
  const { session } = input;
  const final = input.checkStatus === "passed" || input.checkStatus === "failed";
  const fresh = final ? await loadKbaSigner(ctx, input.signerId) : null;
  const now = nowIso();
  return [
    ctx.db
      .prepare(
        `UPDATE kba_sessions SET status = CASE WHEN status = 'open' AND EXISTS (SELECT 1 FROM kba_checks WHERE signer_id = ? AND status = 'required' AND attempts_used = ?) THEN ? END,
           outcome = ?, scored_at = ? WHERE id = ?`,
      )
      .bind(session.signer_id, session.attempt - 1, input.settledAs, input.outcome, now, session.id),
    ctx.db.prepare("UPDATE kba_checks SET status = ?, attempts_used = ?, updated_at = ? WHERE signer_id = ?").bind(input.checkStatus, session.attempt, now, session.signer_id),
    ...(fresh
      ? await outcomeStatements(ctx, {
          envelope: fresh.sc.envelope,
          signer: fresh.sc.signer,
          outcome: input.checkStatus as "passed" | "failed",
          provider: input.provider,
          providerSessionId: session.provider_session_id,
          attempts: session.attempt,
          origin: input.origin,
          at: now,
        })
      : []),
  ];
}
