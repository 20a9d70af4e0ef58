import type { Locale } from "../../db/schema/locales";
import type { RequestContext } from "../../lib/context";
import { newId } from "../../lib/ids";
import { newShardId, shardOf, type GlobalDb } from "../../lib/shards";
import { securedPartyOf, type EnvelopeRow } from "../envelopes/repository";
import { runChecks, summarize, type ComplianceCheck, type ComplianceFacts, type ControlFacts } from "./compliance-checks";
import { identityEntries, type IdentityVerificationEntry } from "./identity-verification";
import { consentBlockFrom, consentSatisfied, NO_CONSENT, type ConsumerConsentBlock } from "./consumer-consent";
import { vaultKeys } from "./keys";
import { certificateInsert, type CertificateRow } from "./repository";
import { directReads, type RecordReader, type RecordReads } from "./record-reads";
import { renderCertificatePdf, type EvidenceLevel } from "../../pdf";

export const CERTIFICATE_TYPE = "ucc_9105_electronic_chattel_paper";
export const CERTIFICATE_VERSION = "1.0";

/** An organization a certificate names. */
export type CertificateParty = { org_id: string; name: string };

/**
 * Who holds the authoritative copy as of the certificate (docs/control.md): the originator (the vaulting
 * organization), the controller (control under §9-105, the only one given the authoritative copy), the
 * pledgor while pledged, the record's status, and how many transfers of control were accepted.
 */
export type CertificateControl = {
  originator: CertificateParty;
  controller: CertificateParty;
  pledgor: CertificateParty | null;
  status: "active" | "paid_off" | "paper_out" | "destroyed";
  transfer_count: number;
  /**
   * Retention (docs/control.md): until when the closed record is kept, when it was destroyed, and the legal holds in
   * force as of the certificate. Absent on certificates issued before retention existed.
   */
  retain_until?: string | null;
  destroyed_at?: string | null;
  legal_holds?: { hold_id: string; placed_by_org_id: string | null; reason: string; reference: string | null; placed_at: string }[];
};

/** The compliance certificate exactly as served (spec part 2, "Compliance certificate"), with its control block (docs/control.md). */
export type Certificate = {
  certificate_type: typeof CERTIFICATE_TYPE;
  certificate_version: typeof CERTIFICATE_VERSION;
  issued_at: string;
  /** `locale`: the language the signing page, the signers' emails and the disclosure were shown in (absent on certificates issued before it was recorded) */
  subject: { envelope_id: string; envelope_name: string; customer_id: string; status: string; locale?: Locale };
  secured_party: { name: string | null; role: string | null };
  document_integrity: { hash_algorithm: "SHA-256"; document_hash: string } & Partial<CertificateEvidence>;
  ucc_9105_compliance: { compliant: boolean; score: number; checks: ComplianceCheck[] };
  /**
   * `compliant`: the retention checks (§7001(d)) and, where the envelope asked for consent, every
   * signer's consent (§7001(c)). `consumer_consent`: absent on certificates issued before it existed.
   */
  esign_act_compliance: { act: string; citation: string; compliant: boolean; consumer_consent?: ConsumerConsentBlock };
  identity_verification: { kba_required: boolean; signers: IdentityVerificationEntry[] };
  control: CertificateControl;
};

/**
 * The PAdES evidence level of the vaulted bytes (docs/evidence.md) and, when it is below what the
 * configuration targets, the target and why the record was vaulted without it. Absent on paper
 * uploads (no seal of ours) and on certificates issued before levels were recorded.
 */
export type CertificateEvidence = { evidence_level: EvidenceLevel; evidence_level_target?: EvidenceLevel; evidence_level_reason?: string };

/** The checks an electronic record must pass to meet E-SIGN's retention rule (15 U.S.C. §7001(d)). */
const ESIGN_RETENTION_CHECKS = ["single_authoritative_copy", "unalterable", "revisions_identifiable"];

export function buildCertificate(
  envelope: EnvelopeRow,
  facts: ComplianceFacts,
  identity: IdentityVerificationEntry[],
  issuedAt: string,
  consent: ConsumerConsentBlock = NO_CONSENT,
  evidence: CertificateEvidence | null = null,
): Certificate {
  const checks = runChecks(facts);
  const { compliant, score } = summarize(checks);
  const party = securedPartyOf(envelope);
  return {
    certificate_type: CERTIFICATE_TYPE,
    certificate_version: CERTIFICATE_VERSION,
    issued_at: issuedAt,
    subject: { envelope_id: envelope.id, envelope_name: envelope.name, customer_id: envelope.customer_id, status: envelope.status, locale: envelope.locale },
    secured_party: { name: party?.name ?? null, role: party?.role ?? null },
    document_integrity: { hash_algorithm: "SHA-256", document_hash: facts.documentHash ?? "", ...(evidence ?? {}) },
    ucc_9105_compliance: { compliant, score, checks },
    esign_act_compliance: {
      act: "Electronic Signatures in Global and National Commerce Act (E-SIGN Act)",
      citation: "15 U.S.C. §7001(d)",
      compliant: checks.filter((c) => ESIGN_RETENTION_CHECKS.includes(c.requirement)).every((c) => c.satisfied) && consentSatisfied(consent),
      consumer_consent: consent,
    },
    identity_verification: { kba_required: envelope.kba_required === 1, signers: identity },
    control: controlBlock(envelope, facts.control),
  };
}

/**
 * The certificate's control block from the facts. A certificate exists only for a vaulted envelope,
 * whose facts name the originator and the controller; the envelope's organization stands in for them
 * otherwise, and an organization's id for a name not resolved (issueCertificate resolves them first).
 */
function controlBlock(envelope: EnvelopeRow, control: ControlFacts): CertificateControl {
  const party = (orgId: string, name: string | null): CertificateParty => ({ org_id: orgId, name: name ?? orgId });
  const originatorOrgId = control.originatorOrgId ?? envelope.org_id;
  const controllerOrgId = control.controllerOrgId ?? originatorOrgId;
  return {
    originator: party(originatorOrgId, control.originatorName),
    controller: party(controllerOrgId, control.controllerName),
    pledgor: control.pledgorOrgId ? party(control.pledgorOrgId, control.pledgorName) : null,
    status: control.status ?? "active",
    transfer_count: control.transferCount,
    retain_until: control.retainUntil ?? null,
    destroyed_at: control.destroyedAt ?? null,
    legal_holds: control.holds ?? [],
  };
}

/**
 * The facts with every party of the control block named: vault-in and the integrity checks know the
 * parties' ids only, so the names are read here (one lookup per distinct organization not yet named).
 */
async function withPartyNames(reads: RecordReads, envelope: EnvelopeRow, facts: ComplianceFacts): Promise<ComplianceFacts> {
  const c = facts.control;
  const originatorOrgId = c.originatorOrgId ?? envelope.org_id;
  const controllerOrgId = c.controllerOrgId ?? originatorOrgId;
  const known = new Map<string, string>();
  for (const [id, name] of [[originatorOrgId, c.originatorName], [controllerOrgId, c.controllerName], [c.pledgorOrgId, c.pledgorName]] as const) {
    if (id && name) known.set(id, name);
  }
  const missing = [...new Set([originatorOrgId, controllerOrgId, c.pledgorOrgId].filter((id): id is string => id !== null && !known.has(id)))];
  const found = await Promise.all(missing.map(async (id) => [id, await reads.orgName(id)] as const));
  for (const [id, name] of found) if (name) known.set(id, name);
  const nameOf = (id: string | null) => (id ? (known.get(id) ?? null) : null);
  return {
    ...facts,
    // names only: the ids (and so the checks' outcomes) stay as the caller decided them
    control: { ...c, originatorName: nameOf(originatorOrgId), controllerName: nameOf(controllerOrgId), pledgorName: nameOf(c.pledgorOrgId) },
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
 *
 * `renderPdf: false` (a pool's moves, thousands at a time): the row names the key, but nothing is
 * stored there yet; the PDF is rendered from the row's JSON on its first read (openCertificatePdf).
 * `reader`: where its reads come from (record-reads.ts; by default each when asked).
 */
export async function issueCertificate(
  ctx: Pick<RequestContext, "db" | "global" | "env">,
  input: {
    envelope: EnvelopeRow;
    vaultId: string;
    facts: ComplianceFacts;
    issuedAt: string;
    reason: string;
    evidence?: CertificateEvidence | null;
    renderPdf?: boolean;
    reader?: RecordReader;
  },
): Promise<IssuedCertificate> {
  const { envelope, vaultId, issuedAt, reason } = input;
  const reads = (input.reader ?? directReads(ctx.db))(ctx.global);
  const [facts, identity, consent, evidence] = await Promise.all([
    withPartyNames(reads, envelope, input.facts),
    reads.kbaResults(envelope.id).then(identityEntries),
    consentBlockFrom(envelope, { disclosure: reads.disclosure, signers: reads.signers }),
    input.evidence !== undefined ? Promise.resolve(input.evidence) : reads.latestCertificate(envelope.id).then(evidenceOf),
  ]);
  const certificate = buildCertificate(envelope, facts, identity, issuedAt, consent, evidence);
  const id = newShardId("certificate", shardOf(envelope.id));
  const pdfKey = vaultKeys(envelope.org_id, envelope.id, vaultId).certificate(id);
  if (input.renderPdf !== false) await putCertificatePdf(ctx.env, { pdf_key: pdfKey, envelope_id: envelope.id, vault_id: vaultId }, await renderCertificatePdf(certificate));
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

/** Stores a certificate version's PDF under the key its row names. */
function putCertificatePdf(env: Pick<RequestContext["env"], "DOCS">, at: { pdf_key: string; envelope_id: string; vault_id: string }, pdf: Uint8Array) {
  return env.DOCS.put(at.pdf_key, pdf, {
    httpMetadata: { contentType: "application/pdf" },
    customMetadata: { envelope_id: at.envelope_id, vault_id: at.vault_id, role: "certificate" },
  });
}

/**
 * The PDF of a certificate version, rendered now from the version's own JSON if it was issued without
 * one (a pool's move: issueCertificate's `renderPdf: false`) and stored under the key its row names,
 * so the next read finds it. Never an older version's PDF: the key is this version's alone. Two first
 * reads at once both render the same JSON; the later write wins, and each serves its own rendering.
 */
export async function openCertificatePdf(
  env: Pick<RequestContext["env"], "DOCS">,
  row: { pdf_key: string; body: string; envelope_id: string; vault_id: string },
): Promise<{ body: ReadableStream; size: number }> {
  const stored = await env.DOCS.get(row.pdf_key);
  if (stored) return { body: stored.body, size: stored.size };
  const pdf = await renderCertificatePdf(JSON.parse(row.body) as Certificate);
  await putCertificatePdf(env, row, pdf);
  return { body: new Blob([pdf]).stream(), size: pdf.byteLength };
}

/**
 * A re-issued certificate (integrity, control) carries the evidence block of the one before it: the
 * vaulted bytes, and so their level, never change after vaulting.
 */
function evidenceOf(row: Pick<CertificateRow, "body"> | null): CertificateEvidence | null {
  if (!row) return null;
  try {
    const body = JSON.parse(row.body) as Partial<Certificate>;
    const integrity = body.document_integrity;
    if (!integrity?.evidence_level) return null;
    return {
      evidence_level: integrity.evidence_level,
      ...(integrity.evidence_level_target ? { evidence_level_target: integrity.evidence_level_target } : {}),
      ...(integrity.evidence_level_reason ? { evidence_level_reason: integrity.evidence_level_reason } : {}),
    };
  } catch {
    return null;
  }
}

/**
 * The envelope's `compliant` flag is `certificate_issued_at IS NOT NULL`: true once a certificate has
 * been generated (spec 2 and 4.2, docs/decisions/compliance-and-certificate.md), whatever that certificate attests. The column holds
 * the issue time of the current certificate; whether the record meets UCC §9-105 is the certificate's
 * own `ucc_9105_compliance.compliant` and the live evaluation (`GET .../vault/compliance`).
 */
export const compliantSince = (issued: IssuedCertificate): string => issued.certificate.issued_at;
