import type { OrgContext, RequestContext } from "../../lib/context";
import { changeEnvelope, type EnvelopeMove } from "./commit";
import type { LoadedEnvelope } from "./repository";

/** A move of one envelope; who makes it is `ctx.actor`, the envelope's organization its own. */
export type TransitionInput = EnvelopeMove & {
  /** statements that belong to the same change (they commit or fail with it) */
  extra?: D1PreparedStatement[];
};

/**
 * Moves one envelope through the state machine (state-machine.ts) with `changeEnvelope`: the status
 * update, the audit entry and the event in one batch; a lost race reads the envelope again, and the
 * state machine then says whether the move still applies (422 naming the status if not).
 */
export async function transitionEnvelope(ctx: OrgContext, input: TransitionInput & { envelopeId: string }): Promise<LoadedEnvelope> {
  return applyTransition(ctx, { org_id: ctx.orgId, id: input.envelopeId }, input);
}

/** `transitionEnvelope` of an envelope the caller has already read (its first attempt uses that read). */
export async function applyTransition(
  ctx: RequestContext,
  envelope: LoadedEnvelope | { org_id: string; id: string },
  input: TransitionInput,
): Promise<LoadedEnvelope> {
  const { extra, ...move } = input;
  const read = "head" in envelope ? envelope : undefined;
  const { updated } = await changeEnvelope(ctx, { orgId: envelope.org_id, envelopeId: envelope.id, read }, async () => ({
    change: { moves: [move], statements: extra },
    result: undefined,
  }));
  return updated;
}
