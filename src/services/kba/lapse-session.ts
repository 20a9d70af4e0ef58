import { KBA_MAX_ATTEMPTS, type KbaCheckStatus } from "../../db/schema/kba";
import type { RequestContext } from "../../lib/context";
import type { RequestOrigin } from "../signers/signer-actor";
import { commitKba } from "./commit";
import type { KbaSessionRow } from "./repository";
import { settleSession } from "./settle-session";

/**
 * Settles a question set that lapsed unanswered as a used attempt, scored `failed` (docs/kba.md).
 * Were a lapse free, a link holder could let sets lapse and fetch fresh ones forever, each a billable
 * provider call, shopping for questions they can answer. On the last attempt the check becomes
 * `failed` and the outcome is recorded and billed like wrong answers (the provider built both sets).
 * The lapse is counted once however many requests notice it (./settle-session.ts). Returns the check's status after the lapse, or null
 * when another request settled the set or the check first (the caller reads the state again).
 */
export async function lapseSession(ctx: RequestContext, input: { signerId: string; session: KbaSessionRow; origin: RequestOrigin }): Promise<KbaCheckStatus | null> {
  const { session } = input;
  const final = session.attempt >= KBA_MAX_ATTEMPTS;
  const status: KbaCheckStatus = final ? "failed" : "required";
  const committed = await commitKba(ctx, () =>
    settleSession(ctx, { signerId: input.signerId, session, settledAs: "expired", outcome: "failed", checkStatus: status, provider: session.provider, origin: input.origin }),
  );
  return committed ? status : null;
}
