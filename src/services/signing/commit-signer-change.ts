import type { RequestContext } from "../../lib/context";
import { commitEnvelopeChange, type ChainEntry, type EnvelopeMove } from "../envelopes/commit";
import { loadSigningContext, type SigningContext } from "./repository";
import { requestOrigin, signerActor } from "../signers/signer-actor";

export type SignerChange = {
  /** audit entries on the envelope's chain, in order, each with the event it emits (if any) */
  entries: ChainEntry[];
  /** the signer's own writes (status, values) */
  statements: D1PreparedStatement[];
  /** an envelope move that belongs to the same change (view, complete, decline), after the entries */
  transition?: EnvelopeMove;
  /** the time the change records, when the caller fixed it before planning (the completed document carries it) */
  at?: string;
};

/**
 * Commits one signer action with the envelope's one commit (envelopes/commit.ts): the signer's writes,
 * its audit entries and events, and the envelope move it causes, in one batch, the actor being the
 * signer the credential named (from where the request came). Two actions on one envelope racing each
 * other (the last two signers submitting at once) cannot both commit: the loser reads the signing
 * context again and `build` decides again, now seeing the other's completion. That is what makes
 * `envelope.completed` happen exactly once. `build` returns null when, given the state read, there is
 * nothing to do (an idempotent repeat); it runs on every attempt, so it only decides and plans.
 */
export async function commitSignerChange<T>(
  ctx: RequestContext,
  signerId: string,
  build: (sc: SigningContext, at: string) => Promise<{ change: SignerChange | null; result: T }>,
  /** the signing context the caller already read: the first attempt plans on it rather than reading again */
  first?: SigningContext,
): Promise<T> {
  const { result } = await commitEnvelopeChange(ctx, {
    read: (attempt) => (attempt === 0 && first ? Promise.resolve(first) : loadSigningContext(ctx, signerId)),
    envelopeOf: (sc) => sc.envelope,
    plan: async (sc, at) => {
      const { change, result } = await build(sc, at);
      if (!change) return { change: null, result };
      // The credential said who the signer is; the request's context says where they called from.
      const actor = signerActor(sc.signer, requestOrigin(ctx.actor));
      return {
        change: { entries: change.entries, moves: change.transition ? [change.transition] : [], statements: change.statements, actor, at: change.at },
        result,
      };
    },
  });
  return result;
}
