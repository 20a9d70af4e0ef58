import { conflict, type ErrorCodesByStatus } from "../../lib/errors";
import type { RequestContext } from "../../lib/context";
import { disclosureView, pinnedDisclosure, signerConsentOf } from "../consent/disclosure";
import type { SignerConsent } from "../consent/schema";
import { assertKbaCleared } from "../kba/gate";
import { assertOtpVerified } from "../otp/gate";
import { consentApplies } from "../signers/consent-gate";
import { signerConsentUpdate } from "../signers/repository";
import { requestOrigin, signerData } from "../signers/signer-actor";
import { commitSignerChange } from "./commit-signer-change";
import { declineSigning } from "./decline-signing";
import type { SigningContext } from "./repository";

export const CONSENT_WITHDRAWN_REASON = "consent_withdrawn";

/** The envelope's pinned disclosure with its hash; refuses (409) an envelope that asks for no consent. */
async function disclosureOf(ctx: RequestContext, sc: SigningContext) {
  if (!consentApplies(sc.envelope)) {
    throw conflict("This envelope does not ask for consent to electronic records", { consumer_consent: false }, "consent_not_required");
  }
  const row = await pinnedDisclosure(ctx.global, sc.envelope);
  const view = await disclosureView(row, sc.envelope.locale);
  return { row, ref: { version: view.version, sha256: view.sha256 } };
}

/**
 * POST /signing/:slug/consent `{agree: true}` (docs/consumer-signing.md and docs/control.md U.S.C. §7001(c)): the signer consents
 * to electronic records after the disclosure the envelope pinned. Records `consent_given_at` and a
 * `signer.consented` entry on the envelope's chain naming the disclosure's version and SHA-256, the
 * time, address and user agent, in one commit. KBA first (403 `kba_required`); a repeat answers the
 * consent already given; a signer who has signed without it (cannot happen) is 409.
 */
export async function giveConsent(ctx: RequestContext, input: { signerId: string }): Promise<{ consent: SignerConsent }> {
  return commitSignerChange(ctx, input.signerId, async (sc, at) => {
    const { signer, envelope } = sc;
    await assertKbaCleared(ctx.db, signer.id);
    await assertOtpVerified(ctx.db, signer);
    const { row, ref } = await disclosureOf(ctx, sc);
    if (signer.consent_given_at) return { change: null, result: { consent: signerConsentOf(row, signer.consent_given_at, envelope.locale) } };
    if (signer.status === "completed") throw conflict("This signer has already signed", { signer_status: signer.status });
    const origin = requestOrigin(ctx.actor);
    const data = {
      envelope_id: envelope.id,
      ...signerData(signer),
      disclosure: ref,
      consented_at: at,
      ip: origin.ip,
      user_agent: origin.userAgent?.slice(0, 512) ?? null,
    };
    return {
      change: { entries: [{ action: "signer.consented", data }], statements: [signerConsentUpdate(ctx.db, signer.id, at)] },
      result: { consent: signerConsentOf(row, at, envelope.locale) },
    };
  });
}

/**
 * POST /signing/:slug/consent `{agree: false}`: the signer withdraws (or refuses) consent. Recorded
 * (`signer.consent_withdrawn`, with the disclosure's hash) and the signer declines with reason
 * `consent_withdrawn` in the same change, exactly as POST /signing/:slug/decline: the envelope is
 * `declined`, with its events and emails.
 */
export async function withdrawConsent(ctx: RequestContext, input: { signerId: string }) {
  return declineSigning(ctx, {
    signerId: input.signerId,
    reason: CONSENT_WITHDRAWN_REASON,
    before: async (sc, at) => {
      const { ref } = await disclosureOf(ctx, sc);
      const origin = requestOrigin(ctx.actor);
      const data = {
        envelope_id: sc.envelope.id,
        ...signerData(sc.signer),
        disclosure: ref,
        consent_given_at: sc.signer.consent_given_at,
        withdrawn_at: at,
        ip: origin.ip,
        user_agent: origin.userAgent?.slice(0, 512) ?? null,
      };
      return [{ action: "signer.consent_withdrawn" as const, data }];
    },
  });
}

export const GIVE_CONSENT_ERRORS: ErrorCodesByStatus = { 409: ["consent_not_required"] };
