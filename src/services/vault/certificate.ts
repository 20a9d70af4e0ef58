import type { RequestContext } from "../../lib/context";
import { newId } from "../../lib/ids";
import { securedPartyOf, type EnvelopeRow } from "../envelopes/repository";
import { runChecks, summarize, type ComplianceCheck, type ComplianceFacts } from "./compliance-checks";
import { identityVerification, type IdentityVerificationEntry } from "./identity-verification";
import { vaultKeys } from "./keys";
import { certificateInsert } from "./repository";
import { renderCertificatePdf } from "../../pdf";

export const CERTIFICATE_TYPE = "ucc_9105_electronic_chattel_paper";
export const CERTIFICATE_VERSION = "1.0";

/** The compliance certificate exactly as served (spec part 2, "Compliance certificate"). */
export type Certificate = {
  certificate_type: typeof CERTIFICATE_TYPE;
  certificate_version: typeof CERTIFICATE_VERSION;
  issued_at: string;
  subject: { envelope_id: string; envelope_name: string; customer_id: string; status: string };
  secured_party: { name: string | null; role: string | null };
  document_integrity: { hash_algorithm: "SHA-256"; document_hash: string };
  ucc_9105_compliance: { compliant: boolean; score: number; checks: ComplianceCheck[] };
  esign_act_compliance: { act: string; citation: string; compliant: boolean };
  identity_verification: { kba_required: boolean; signers: IdentityVerificationEntry[] };
};

/** The checks an electronic record must pass to meet E-SIGN's retention rule (15 U.S.C. §7001(d)). */
const ESIGN_RETENTION_CHECKS = ["single_authoritative_copy", "unalterable", "revisions_identifiable"];

export function buildCertificate(envelope: EnvelopeRow, facts: ComplianceFacts, identity: IdentityVerificationEntry[], issuedAt: string): Certificate {
  const checks = runChecks(facts);
  const { compliant, score } = summarize(checks);
  const party = securedPartyOf(envelope);
  return {
    certificate_type: CERTIFICATE_TYPE,
    certificate_version: CERTIFICATE_VERSION,
    issued_at: issuedAt,
    subject: { envelope_id: envelope.id, envelope_name: envelope.name, customer_id: envelope.customer_id, status: envelope.status },
    secured_party: { name: party?.name ?? null, role: party?.role ?? null },
    document_integrity: { hash_algorithm: "SHA-256", document_hash: facts.documentHash ?? "" },
    ucc_9105_compliance: { compliant, score, checks },
    esign_act_compliance: {
      act: "Electronic Signatures in Global and National Commerce Act (E-SIGN Act)",
      citation: "15 U.S.C. §7001(d)",
      compliant: checks.filter((c) => ESIGN_RETENTION_CHECKS.includes(c.requirement)).every((c) => c.satisfied),
    },
    identity_verification: { kba_required: envelope.kba_required === 1, signers: identity },
  };
}

/** True when two sets of checks reach the same outcome on every requirement. */
export function sameOutcomes(a: ComplianceCheck[], b: ComplianceCheck[]): boolean {
  return a.length === b.length && a.every((c, i) => c.requirement === b[i]?.requirement && c.satisfied === b[i]?.satisfied);
}

export type IssuedCertificate = {
  id: string;
  certificate: Certificate;
  pdfKey: string;
  /** the INSERT, for the batch that also records why it was issued; `version` is the next one */
  insert: (db: D1Database, version: number) => D1PreparedStatement;
};

/**
 * Builds a certificate and stores its PDF rendering in the vault beside the document. The PDF goes
 * to a key unique to this certificate, so a batch that then fails leaves only an unreferenced object
 * (the caller deletes it); the row, inserted by the caller's batch, is what makes it the current one.
 */
export async function issueCertificate(
  ctx: Pick<RequestContext, "db" | "env">,
  input: { envelope: EnvelopeRow; vaultId: string; facts: ComplianceFacts; issuedAt: string; reason: string },
): Promise<IssuedCertificate> {
  const { envelope, vaultId, issuedAt, reason } = input;
  const certificate = buildCertificate(envelope, input.facts, await identityVerification(ctx.db, envelope), issuedAt);
  const id = newId("certificate");
  const pdfKey = vaultKeys(envelope.org_id, envelope.id, vaultId).certificate(id);
  await ctx.env.DOCS.put(pdfKey, await renderCertificatePdf(certificate), {
    httpMetadata: { contentType: "application/pdf" },
    customMetadata: { envelope_id: envelope.id, vault_id: vaultId, role: "certificate" },
  });
  const { compliant, score } = certificate.ucc_9105_compliance;
  return {
    id,
    certificate,
    pdfKey,
    insert: (db, version) =>
      certificateInsert(db, {
        id,
        envelope_id: envelope.id,
        org_id: envelope.org_id,
        vault_id: vaultId,
        version,
        body: JSON.stringify(certificate),
        compliant: compliant ? 1 : 0,
        score,
        pdf_key: pdfKey,
        reason,
        issued_at: issuedAt,
      }),
  };
}

/**
 * The envelope's `compliant` flag is `certificate_issued_at IS NOT NULL`: it holds the issue time of
 * the current certificate while that certificate attests compliance, and is cleared when a newer one
 * does not (a tamper detection), so `compliant` never says true next to a certificate saying false.
 */
export const compliantSince = (issued: IssuedCertificate): string | null =>
  issued.certificate.ucc_9105_compliance.compliant ? issued.certificate.issued_at : null;
