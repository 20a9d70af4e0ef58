import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from "pdf-lib";

const LANGUAGE_NAMES: Record<string, string> = { en: "English (en)", es: "Spanish (es)" };

/**
 * What the certificate PDF prints: the compliance certificate as served (services/vault/certificate.ts
 * builds it and its rules; this file only lays it out).
 */
export type PrintableCertificate = {
  certificate_type: string;
  certificate_version: string;
  issued_at: string;
  subject: { envelope_id: string; envelope_name: string; customer_id: string; status: string; locale?: string };
  secured_party: { name: string | null; role: string | null };
  /** `evidence_level` (and, when below it, the target and why): the seal's PAdES level, absent on paper uploads */
  document_integrity: { hash_algorithm: string; document_hash: string; evidence_level?: string; evidence_level_target?: string; evidence_level_reason?: string };
  ucc_9105_compliance: { compliant: boolean; score: number; checks: { requirement: string; ucc_reference: string; satisfied: boolean; detail: string }[] };
  esign_act_compliance: {
    act: string;
    citation: string;
    compliant: boolean;
    consumer_consent?: {
      required: boolean;
      citation: string;
      disclosure_version: number | null;
      disclosure_sha256: string | null;
      signers: { role: string; name: string; consented_at: string | null }[];
    };
  };
  identity_verification: {
    signers: { signer: string; status: string; timestamp: string; ip_address: string | null; provider: string; session_id: string | null }[];
  };
  /** absent on certificates issued before control could move */
  control?: {
    originator: PrintableParty;
    controller: PrintableParty;
    pledgor: PrintableParty | null;
    status: string;
    transfer_count: number;
    /** retention (absent on certificates issued before it existed) */
    retain_until?: string | null;
    destroyed_at?: string | null;
    legal_holds?: { hold_id: string; placed_by_org_id: string | null; reason: string; reference: string | null; placed_at: string }[];
  };
};

type PrintableParty = { org_id: string; name: string };
const partyText = (p: PrintableParty) => (p.name && p.name !== p.org_id ? `${p.name} (${p.org_id})` : p.org_id);
const STATUS_TEXT: Record<string, string> = {
  active: "active",
  paid_off: "paid off (closed: control no longer moves)",
  paper_out: "converted to paper (closed: the electronic record is no longer authoritative)",
  destroyed: "destroyed after its retention period (its files deleted; hashes, chain and certificates kept)",
};

const PAGE: [number, number] = [612, 792];
const MARGIN = 56;

/** Drops characters the standard fonts cannot encode (user-supplied names may hold any script). */
function encodable(font: PDFFont, text: string): string {
  let out = "";
  for (const ch of text) {
    try {
      font.encodeText(ch);
      out += ch;
    } catch {
      out += "?";
    }
  }
  return out;
}

/** The KBA provider as the PDF names it: the sandbox is called what it is, so no reader takes it for a verification. */
const providerText = (provider: string) => (provider === "sandbox" ? "provider sandbox (development provider: verifies nobody)," : `provider ${provider},`);

/** The certificate as a PDF, for the vault and for people; the JSON stays the record of truth. */
export async function renderCertificatePdf(cert: PrintableCertificate): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`UCC 9-105 compliance certificate - ${cert.subject.envelope_id}`);
  doc.setSubject(cert.certificate_type);
  doc.setCreationDate(new Date(cert.issued_at));
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  let page: PDFPage = doc.addPage(PAGE);
  let y = PAGE[1] - MARGIN;

  const write = (text: string, opts: { font?: PDFFont; size?: number; indent?: number; color?: [number, number, number] } = {}) => {
    const font = opts.font ?? regular;
    const size = opts.size ?? 10;
    const x = MARGIN + (opts.indent ?? 0);
    const width = PAGE[0] - MARGIN - x;
    const words = encodable(font, text).split(" ");
    let line = "";
    const lines: string[] = [];
    for (const word of words) {
      const next = line ? `${line} ${word}` : word;
      if (line && font.widthOfTextAtSize(next, size) > width) {
        lines.push(line);
        line = word;
      } else line = next;
    }
    lines.push(line);
    for (const l of lines) {
      if (y < MARGIN) {
        page = doc.addPage(PAGE);
        y = PAGE[1] - MARGIN;
      }
      page.drawText(l, { x, y, size, font, color: rgb(...(opts.color ?? [0, 0, 0])) });
      y -= size * 1.4;
    }
  };
  const gap = (h = 8) => (y -= h);

  write("Certificate of Compliance", { font: bold, size: 18 });
  write("UCC §9-105 electronic chattel paper", { size: 12 });
  gap();
  write(`Certificate type: ${cert.certificate_type}, version ${cert.certificate_version}`);
  write(`Issued at: ${cert.issued_at}`);
  gap();
  write("Subject", { font: bold, size: 12 });
  write(`Envelope: ${cert.subject.envelope_id} - ${cert.subject.envelope_name}`);
  write(`Customer: ${cert.subject.customer_id}`);
  write(`Status: ${cert.subject.status}`);
  if (cert.subject.locale) write(`Language shown to the signers: ${LANGUAGE_NAMES[cert.subject.locale] ?? cert.subject.locale}`);
  gap();
  write("Secured party", { font: bold, size: 12 });
  write(`${cert.secured_party.name ?? "(not named)"}${cert.secured_party.role ? ` - ${cert.secured_party.role}` : ""}`);
  gap();
  if (cert.control) {
    const control = cert.control;
    write("Control of the authoritative copy (UCC §9-105)", { font: bold, size: 12 });
    write(`Controller: ${partyText(control.controller)}`);
    write(`Pledgor: ${control.pledgor ? partyText(control.pledgor) : "none"}`);
    write(`Originator: ${partyText(control.originator)}`);
    write(`Transfers of control: ${control.transfer_count}`);
    write(`Control status: ${STATUS_TEXT[control.status] ?? control.status}`);
    if (control.retain_until) write(`Retained until: ${control.retain_until}`);
    if (control.destroyed_at) write(`Destroyed at: ${control.destroyed_at}`);
    for (const hold of control.legal_holds ?? []) {
      write(`Legal hold ${hold.hold_id} since ${hold.placed_at} by ${hold.placed_by_org_id ?? "the operator"}: ${hold.reason}${hold.reference ? ` (${hold.reference})` : ""}`);
    }
    write(`The service holds the authoritative copy as custodian for the controller and gives it to no one else.`, { size: 9 });
    gap();
  }
  write("Document integrity", { font: bold, size: 12 });
  write(`${cert.document_integrity.hash_algorithm}: ${cert.document_integrity.document_hash}`, { size: 9 });
  const integrity = cert.document_integrity;
  if (integrity.evidence_level) {
    write(`Seal evidence level (PAdES, ETSI EN 319 142-1): ${integrity.evidence_level}`, { size: 9 });
    if (integrity.evidence_level_target) {
      write(`Below the configured level ${integrity.evidence_level_target}: ${integrity.evidence_level_reason ?? "not reached before vaulting"}`, { size: 9, color: [0.7, 0.35, 0] });
    }
  }
  gap();
  const ucc = cert.ucc_9105_compliance;
  write(`UCC §9-105: ${ucc.compliant ? "COMPLIANT" : "NOT COMPLIANT"} (score ${ucc.score})`, {
    font: bold,
    size: 12,
    color: ucc.compliant ? [0, 0.4, 0] : [0.7, 0, 0],
  });
  for (const check of ucc.checks) {
    write(`${check.satisfied ? "[satisfied]" : "[NOT satisfied]"} ${check.requirement} (${check.ucc_reference})`, { font: bold, size: 9, indent: 8 });
    write(check.detail, { size: 9, indent: 16 });
  }
  gap();
  const esign = cert.esign_act_compliance;
  write("E-SIGN Act", { font: bold, size: 12 });
  write(`${esign.act}, ${esign.citation}: ${esign.compliant ? "compliant" : "not compliant"}`);
  const consent = esign.consumer_consent;
  if (consent?.required) {
    write(`Consumer consent (${consent.citation}): disclosure version ${consent.disclosure_version ?? "-"}, SHA-256 ${consent.disclosure_sha256 ?? "-"}`, { size: 9 });
    for (const s of consent.signers) write(`${s.name} (${s.role}): ${s.consented_at ? `consented at ${s.consented_at}` : "NO consent recorded"}`, { size: 9, indent: 8 });
  } else if (consent) {
    write(`Consumer consent (${consent.citation}): not asked on this envelope`, { size: 9 });
  }
  gap();
  write("Identity verification (additive evidence; does not change the checks or the score)", { font: bold, size: 12 });
  if (cert.identity_verification.signers.length === 0) write("No knowledge-based authentication results recorded.");
  for (const s of cert.identity_verification.signers) {
    write(`${s.signer}: ${s.status} at ${s.timestamp}, IP ${s.ip_address ?? "-"}, ${providerText(s.provider)} session ${s.session_id ?? "-"}`, { size: 9, indent: 8 });
  }
  return doc.save();
}
