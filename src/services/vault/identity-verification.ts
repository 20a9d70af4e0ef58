import type { EnvelopeRow } from "../envelopes/repository";

/** One signer's KBA outcome as the certificate lists it (spec part 2: signer, timestamp, IP, session id). */
export type IdentityVerificationEntry = {
  signer: string;
  status: "passed" | "failed" | "unavailable";
  timestamp: string;
  ip_address: string | null;
  session_id: string | null;
};

/**
 * The certificate's identity-verification block: additive evidence only, it never changes the
 * compliance checks or the score. KBA results are not recorded by the service yet, so the list is
 * empty; once the KBA capability stores its results, this reads them for the envelope.
 */
export async function identityVerification(_db: D1Database, _envelope: EnvelopeRow): Promise<IdentityVerificationEntry[]> {
  return [];
}
