import { disclosureView, pinnedDisclosure } from "../consent/disclosure";
import type { GlobalDb, ShardDb } from "../../lib/shards";
import type { EnvelopeRow } from "../envelopes/repository";
import { listSigners, type SignerRow } from "../signers/repository";
import type { EsignDisclosureRow } from "../consent/repository";

export const CONSENT_CITATION = "15 U.S.C. §7001(c)";

/** The certificate's record of E-SIGN consumer consent (docs/consumer-signing.md): the disclosure shown and when each signer consented. */
export type ConsumerConsentBlock = {
  required: boolean;
  citation: typeof CONSENT_CITATION;
  disclosure_version: number | null;
  disclosure_sha256: string | null;
  signers: { role: string; name: string; consented_at: string | null }[];
};

/** No consent asked: the block says so, naming nobody. */
export const NO_CONSENT: ConsumerConsentBlock = { required: false, citation: CONSENT_CITATION, disclosure_version: null, disclosure_sha256: null, signers: [] };

/** Read for a certificate: the envelope's pinned disclosure (its version and hash) and each signer's consent time, in signing order. */
export async function consumerConsentBlock(global: GlobalDb, db: ShardDb, envelope: Pick<EnvelopeRow, "id" | "org_id" | "consumer_consent" | "disclosure_id">): Promise<ConsumerConsentBlock> {
  return consentBlockFrom(envelope, { disclosure: (e) => pinnedDisclosure(global, e), signers: (envelopeId) => listSigners(db, envelopeId) });
}

/** consumerConsentBlock from the reads given (the pinned disclosure, the envelope's signers in signing order). */
export async function consentBlockFrom(
  envelope: Pick<EnvelopeRow, "id" | "org_id" | "consumer_consent" | "disclosure_id">,
  reads: { disclosure: (envelope: { org_id: string; disclosure_id: string | null }) => Promise<EsignDisclosureRow | null>; signers: (envelopeId: string) => Promise<SignerRow[]> },
): Promise<ConsumerConsentBlock> {
  if (envelope.consumer_consent !== 1) return NO_CONSENT;
  const [disclosure, signers] = await Promise.all([reads.disclosure(envelope).then(disclosureView), reads.signers(envelope.id)]);
  return {
    required: true,
    citation: CONSENT_CITATION,
    disclosure_version: disclosure.version,
    disclosure_sha256: disclosure.sha256,
    signers: signers.map((s) => ({ role: s.role, name: s.name, consented_at: s.consent_given_at })),
  };
}

/** §7001(c) is met when consent was not asked, or every signer consented before signing. */
export const consentSatisfied = (block: ConsumerConsentBlock) => !block.required || block.signers.every((s) => s.consented_at !== null);
