import type { OrgContext } from "../../lib/context";
import { conflict, type ErrorCodesByStatus, mergeErrorCodes } from "../../lib/errors";
import { assertEmailCanLeave, type OutboxEmail } from "../../providers/email";
import { deliverEmails } from "../email/deliver";
import { commitEnvelopeChange } from "../envelopes/commit";
import { signerResendUpdate } from "../signers/repository";
import { signerData } from "../signers/signer-actor";
import { assertReissuable, assertResendAllowed, isTheirTurn, readReissueState, reinvitation, REISSUE_ERRORS, reissuedSigner, type ReissueState, RESEND_INTERVAL_MS } from "./reissue";

/**
 * POST /partner/envelopes/:id/signers/:signer_id/resend (docs/consumer-signing.md): a new invitation email to a
 * signer whose turn it is, at most one per 10 minutes per signer (else 429 with `Retry-After`). The
 * permanent slug exists only in an email, so the new email carries a new link: the signer's old link,
 * and every signing session handed out before, stop working (`last_resent_at`). The audit entry
 * `signer.invitation_resent` and the signer's update commit in one batch with the envelope's chain;
 * the update is guarded on the signer still open and the last re-send, so two racing re-sends send one.
 * 404 across organizations or for another envelope's signer; 409 for a closed envelope, a finished
 * signer, or a signer whose turn has not come (their invitation goes out then).
 */
export async function resendInvitation(ctx: OrgContext, input: { envelopeId: string; signerId: string }) {
  assertEmailCanLeave(ctx.env);
  const { result } = await commitEnvelopeChange(ctx, {
    read: () => readReissueState(ctx, input),
    envelopeOf: (state: ReissueState) => state.envelope,
    plan: async (state, at) => {
      assertReissuable(state, at);
      const { envelope, signer } = state;
      if (!isTheirTurn(state)) {
        throw conflict("It is not this signer's turn yet (routing order): their invitation goes out when it comes", { routing_order: signer.routing_order }, "not_signers_turn");
      }
      assertResendAllowed(signer, at);
      const invite = await reinvitation(ctx, { envelope, orgName: state.orgName, signer, kba: envelope.kba_required === 1 && state.kbaCheck !== null, send: true, at });
      const notAfter = new Date(Date.parse(at) - RESEND_INTERVAL_MS).toISOString();
      const data = { envelope_id: envelope.id, ...signerData(signer), resent_at: at };
      return {
        change: {
          entries: [{ action: "signer.invitation_resent" as const, data }],
          statements: [signerResendUpdate(ctx.db, signer.id, { slugHash: invite.slugHash, at, notAfter }), invite.statement!],
        },
        result: { signer: { ...signer, last_resent_at: at }, email: invite.email as OutboxEmail },
      };
    },
  });
  await deliverEmails(ctx, { emails: [result.email] });
  return reissuedSigner(result.signer, true);
}

export const RESEND_INVITATION_ERRORS: ErrorCodesByStatus = mergeErrorCodes(REISSUE_ERRORS, { 409: ["not_signers_turn"] });
