import type { OrgContext } from "../../lib/context";
import { conflict, type ErrorCodesByStatus, mergeErrorCodes } from "../../lib/errors";
import { assertEmailCanLeave } from "../../providers/email";
import { deliverEmails } from "../email/deliver";
import { commitEnvelopeChange } from "../envelopes/commit";
import { kbaRestartStatements } from "../kba/repository";
import { signerCorrectionUpdate } from "../signers/repository";
import { signerData } from "../signers/signer-actor";
import type { CorrectSignerInput } from "./schema";
import { getSignerOtp, signerOtpReset } from "../otp/repository";
import { assertReissuable, isTheirTurn, readReissueState, reinvitation, REISSUE_ERRORS, reissuedSigner, type ReissueState } from "./reissue";

const CORRECTABLE = ["name", "email", "phone"] as const;

/**
 * PATCH /partner/envelopes/:id/signers/:signer_id (docs/consumer-signing.md): corrects a signer's name, email or
 * phone before they finish. In one batch with the envelope's chain: the signer's new fields, a new
 * permanent link (the old slug dies at once, and every signing session handed out before, through
 * `last_resent_at`), a new invitation when it is the signer's turn (otherwise it goes out when the turn
 * comes), KBA started over for a challenged signer (check `required`, no attempt used, an open
 * question set settled, the old result removed), and the audit entry `signer.corrected` naming each
 * changed field with its value before and after. Fields given with their current value change nothing
 * but the link is still re-issued (a correction is also how a leaked link is replaced).
 * 404 across organizations or for another envelope's signer; 409 for a closed envelope or a finished
 * signer, and for a new email of a signer the KBA envelope does not challenge (a member of the sending
 * organization: the challenge was decided by who they are).
 */
export async function correctSigner(ctx: OrgContext, input: { envelopeId: string; signerId: string; body: CorrectSignerInput }) {
  const { result } = await commitEnvelopeChange(ctx, {
    read: () => readReissueState(ctx, input),
    envelopeOf: (state: ReissueState) => state.envelope,
    plan: async (state, at) => {
      assertReissuable(state, at);
      const { envelope, signer, kbaCheck } = state;
      const next = {
        name: input.body.name ?? signer.name,
        email: input.body.email?.trim() ?? signer.email,
        phone: input.body.phone === undefined ? signer.phone : input.body.phone,
      };
      const changes = Object.fromEntries(CORRECTABLE.filter((f) => next[f] !== signer[f]).map((f) => [f, { from: signer[f], to: next[f] }]));
      // a signer who verifies by text keeps a phone; a corrected signer verifies again (their link is new)
      const otp = await getSignerOtp(ctx.db, signer.id);
      if (otp && !next.phone) {
        throw conflict("This signer verifies by text message (auth sms_otp): their phone cannot be removed, only changed", { auth: "sms_otp" }, "otp_needs_phone");
      }
      if (envelope.kba_required === 1 && kbaCheck === null && next.email.toLowerCase() !== signer.email.toLowerCase()) {
        throw conflict(
          "This signer is not challenged by KBA (a member of the sending organization); their email cannot be changed on a KBA envelope: void the envelope and send a new one",
          { kba_required: true },
          "kba_signer_identity",
        );
      }
      const send = isTheirTurn(state);
      if (send) assertEmailCanLeave(ctx.env);
      const challenged = envelope.kba_required === 1 && kbaCheck !== null;
      const invite = await reinvitation(ctx, { envelope, orgName: state.orgName, signer: { ...signer, ...next }, kba: challenged, send, at });
      const data = {
        envelope_id: envelope.id,
        ...signerData({ ...signer, ...next }),
        changes,
        invitation_sent: send,
        kba_restarted: challenged,
        consent_restarted: envelope.consumer_consent === 1,
        otp_restarted: otp !== null,
      };
      return {
        change: {
          entries: [{ action: "signer.corrected" as const, data }],
          statements: [
            signerCorrectionUpdate(ctx.db, signer.id, { ...next, slugHash: invite.slugHash, at }),
            ...(challenged ? kbaRestartStatements(ctx.db, signer.id, at) : []),
            ...(otp ? [signerOtpReset(ctx.db, signer.id)] : []),
            ...(invite.statement ? [invite.statement] : []),
          ],
        },
        result: { signer: { ...signer, ...next, last_resent_at: at }, email: invite.email },
      };
    },
  });
  if (result.email) await deliverEmails(ctx, { emails: [result.email] });
  return reissuedSigner(result.signer, result.email !== null);
}

export const CORRECT_SIGNER_ERRORS: ErrorCodesByStatus = mergeErrorCodes(REISSUE_ERRORS, { 409: ["kba_signer_identity", "otp_needs_phone"] });
