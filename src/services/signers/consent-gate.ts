import { ApiError, type ErrorCodesByStatus } from "../../lib/errors";
import type { EnvelopeRow } from "../envelopes/repository";
import type { SignerRow } from "./repository";

/** Whether the envelope asks its signers for E-SIGN consent (docs/consumer-signing.md; fixed at create). */
export const consentApplies = (envelope: Pick<EnvelopeRow, "consumer_consent">) => envelope.consumer_consent === 1;

/** True when consent does not stand between this signer and the document (not asked, or given). */
export const consentCleared = (envelope: Pick<EnvelopeRow, "consumer_consent">, signer: Pick<SignerRow, "consent_given_at">) =>
  !consentApplies(envelope) || signer.consent_given_at !== null;

/**
 * docs/consumer-signing.md (15 U.S.C. §7001(c)): on an envelope asking for consent, the document, `view`, `submit`
 * and the payment step answer 403 with `code: "consent_required"` until this signer has consented
 * (POST /signing/:slug/consent). It runs after the KBA gate (kba/gate.ts): identity comes first.
 */
export function assertConsentGiven(envelope: Pick<EnvelopeRow, "consumer_consent">, signer: Pick<SignerRow, "consent_given_at">): void {
  if (consentCleared(envelope, signer)) return;
  throw new ApiError(
    403,
    "Consent to electronic records required: read the disclosure (GET /signing/:slug, `consent`) and agree (POST /signing/:slug/consent) first",
    { consent_required: true },
    "consent_required",
  );
}

export const CONSENT_GATE_ERRORS: ErrorCodesByStatus = { 403: ["consent_required"] };
