import type { EnvelopeRow } from "../envelopes/repository";
import { listKbaResults, type KbaResultRow } from "../kba/repository";
import type { ShardDb } from "../../lib/shards";

/** One signer's KBA outcome as the certificate lists it (spec part 2: signer, timestamp, IP, session id). */
export type IdentityVerificationEntry = {
  signer: string;
  status: "passed" | "failed" | "unavailable";
  timestamp: string;
  ip_address: string | null;
  /** who verified: the KBA provider's name (`sandbox` verifies nobody, and says so here) */
  provider: string;
  session_id: string | null;
};

/**
 * The certificate's identity-verification block: additive evidence only, it never changes the
 * compliance checks or the score. One entry per challenged signer's final KBA outcome, in the order
 * they happened.
 */
export async function identityVerification(db: ShardDb, envelope: Pick<EnvelopeRow, "id">): Promise<IdentityVerificationEntry[]> {
  return identityEntries(await listKbaResults(db, envelope.id));
}

/** The block from the envelope's KBA outcomes as read (listKbaResults). */
export function identityEntries(results: KbaResultRow[]): IdentityVerificationEntry[] {
  return results.map((r) => ({ signer: r.signer_email, status: r.status, timestamp: r.occurred_at, ip_address: r.ip_address, provider: r.provider, session_id: r.provider_session_id }));
}
