import type { KbaCheckStatus } from "../../db/schema/kba";
import type { RequestContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import type { RequestOrigin } from "../signers/signer-actor";
import type { KbaBatch } from "./commit";
import { loadKbaSigner } from "./load-kba-signer";
import { outcomeChange } from "./record-outcome";
import { kbaCheckMove, kbaSessionSettle, type KbaSessionRow } from "./repository";

/**
 * The batch that settles a question set, answered (`scored`) or lapsed (`expired`), and moves the check
 * to `checkStatus` at the set's attempt; a final status (`passed`, `failed`) also records and bills the
 * outcome. The first statement is the guard: the set still `open` and the check still `required` at
 * the attempt before this set's, else the status turns NULL and the batch fails whole, so a set is
 * settled once however many requests race to settle it.
 */
export async function settleSession(
  ctx: RequestContext,
  input: { signerId: string; session: KbaSessionRow; settledAs: "scored" | "expired"; outcome: "passed" | "failed"; checkStatus: KbaCheckStatus; provider: string; origin: RequestOrigin },
): Promise<KbaBatch> {
  const { session } = input;
  const final = input.checkStatus === "passed" || input.checkStatus === "failed";
  const fresh = final ? await loadKbaSigner(ctx, input.signerId) : null;
  const now = nowIso();
  return {
    guards: [
      kbaSessionSettle(ctx.db, session, { settledAs: input.settledAs, outcome: input.outcome, at: now }),
      kbaCheckMove(ctx.db, session.signer_id, { status: input.checkStatus, attemptsUsed: session.attempt, at: now }),
    ],
    outcome: fresh
      ? outcomeChange(ctx, {
          envelope: fresh.sc.envelope,
          signer: fresh.sc.signer,
          outcome: input.checkStatus as "passed" | "failed",
          provider: input.provider,
          providerSessionId: session.provider_session_id,
          attempts: session.attempt,
          origin: input.origin,
          at: now,
        })
      : null,
  };
}
