import type { RequestContext } from "../../lib/context";
import { retryRaces } from "../../lib/retry";
import { commitPlanned, envelopeChanged, isEnvelopeRace, planChange } from "../envelopes/commit";
import type { KbaOutcomeChange } from "./record-outcome";
import { isKbaConstraint } from "./repository";

/** A guard of a KBA batch refused it: the check or session had already moved (a replay or a race). */
const isKbaGuard = (err: unknown) =>
  isKbaConstraint(err) || (err instanceof Error && /NOT NULL constraint failed: kba_(checks|sessions)\.status/.test(err.message));

/** A KBA change: its guarded writes, and the final outcome it records on the envelope, if it is final. */
export type KbaBatch = { guards: D1PreparedStatement[]; outcome: KbaOutcomeChange | null };

/**
 * Commits a KBA change in one D1 batch. `build` reads the current state and returns the guards (a
 * status set to NULL, which NOT NULL refuses, when the row is no longer in the state read; unique keys
 * on the result, the scored attempt and the usage line) and, for a final outcome, the envelope change
 * recording it, committed with them through the envelope's one commit (envelopes/commit.ts). A guard
 * failing fails the whole batch: nothing is recorded or billed twice; returns false. An envelope that
 * moved meanwhile (another signer acted) builds again from fresh reads, under the one retry policy.
 */
export async function commitKba(ctx: RequestContext, build: () => Promise<KbaBatch>): Promise<boolean> {
  try {
    await retryRaces(
      async () => {
        const batch = await build();
        if (!batch.outcome) {
          await ctx.db.batch(batch.guards);
          return;
        }
        const { envelope, change } = batch.outcome;
        const planned = await planChange(ctx, envelope, { ...change, statements: [...batch.guards, ...(change.statements ?? [])] });
        await commitPlanned(ctx, [planned]);
      },
      isEnvelopeRace,
      () => envelopeChanged(),
    );
    return true;
  } catch (err) {
    if (isKbaGuard(err)) return false;
    throw err;
  }
}
