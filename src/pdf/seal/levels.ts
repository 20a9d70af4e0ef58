import * as pkijs from "pkijs";
import { IncrementalPdf } from "../incremental/incremental-pdf";
import { addDocumentTimestamp } from "./doc-timestamp";
import { addDss, readDss, sameBytes, type ValidationData } from "./dss";
import { checkCrl, checkOcspResponse, fetchRevocation, isSelfIssued, issuerOf, namesRevocationSource, type RevocationFetch } from "./ocsp";
import { commonNameOf, type SealKey } from "./seal-key";
import { sealPdfPartsReporting } from "./seal-pdf";
import { partsUpTo, previousRevisionEnd, signaturesOf, type PdfSignature } from "./signatures";
import type { TimestampAuthority } from "./timestamp";

/** PAdES baseline levels (ETSI EN 319 142-1), lowest first. */
export const EVIDENCE_LEVELS = ["B-B", "B-T", "B-LT", "B-LTA"] as const;
export type EvidenceLevel = (typeof EVIDENCE_LEVELS)[number];

export const levelRank = (level: EvidenceLevel): number => EVIDENCE_LEVELS.indexOf(level);
export const atLeast = (level: EvidenceLevel, target: EvidenceLevel): boolean => levelRank(level) >= levelRank(target);

const SIGNATURE_TIMESTAMP = "1.2.840.113549.1.9.16.2.14";

/**
 * The level a seal made under this configuration is to reach (docs/evidence.md): B-B without a TSA; B-T
 * with one; B-LTA with one when the seal certificate names where its status is found (AIA OCSP or a
 * CRL distribution point). B-LT is a step on the way, never a target: the document timestamp over
 * the DSS costs one more TSA request and protects the validation data.
 */
export function targetLevel(input: { tsa?: string | TimestampAuthority | null; sealCertificate: pkijs.Certificate }): EvidenceLevel {
  if (!input.tsa) return "B-B";
  return namesRevocationSource(input.sealCertificate) ? "B-LTA" : "B-T";
}

/** What the file's evidence consists of, as read back from its bytes (evidenceLevelOf's findings). */
export type EvidenceReport = {
  /** null when the file holds no seal (no CAdES / PKCS#7 signature) */
  level: EvidenceLevel | null;
  /** the seal's CMS carries a signature timestamp */
  signatureTimestamp: boolean;
  /** document timestamps (ETSI.RFC3161), in order */
  documentTimestamps: number;
  /** the DSS holds a good OCSP response or a CRL not listing the seal certificate */
  revocationData: boolean;
};

const isSeal = (s: PdfSignature) => s.type !== "DocTimeStamp" && s.subFilter !== "ETSI.RFC3161";
const isDocTimestamp = (s: PdfSignature) => s.subFilter === "ETSI.RFC3161";
const lastSeal = (signatures: PdfSignature[]) => [...signatures].reverse().find(isSeal);

function cmsOf(der: Uint8Array): pkijs.SignedData | null {
  try {
    return new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(der).content });
  } catch {
    return null;
  }
}

/** The seal's certificate (the CMS signer's) and the certificates to find its issuer among. */
function signerOf(cms: pkijs.SignedData): { cert: pkijs.Certificate | null; certs: pkijs.Certificate[] } {
  const certs = (cms.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  const sid = cms.signerInfos[0]?.sid;
  const cert = sid instanceof pkijs.IssuerAndSerialNumber ? (certs.find((c) => c.issuer.isEqual(sid.issuer) && c.serialNumber.isEqual(sid.serialNumber)) ?? null) : (certs[0] ?? null);
  return { cert, certs };
}

/** Does `dss` hold validation data for `cert` (a good OCSP response, or its issuer's CRL not listing it)? */
async function hasRevocationFor(dss: ValidationData, cert: pkijs.Certificate, certs: pkijs.Certificate[]): Promise<boolean> {
  const pool = [...certs];
  for (const der of dss.certs) {
    try {
      pool.push(pkijs.Certificate.fromBER(der));
    } catch {
      // skip
    }
  }
  const issuer = await issuerOf(cert, pool);
  if (!issuer) return false;
  // Read back as the data was when added: an OCSP response's freshness is judged at its own thisUpdate.
  for (const der of dss.ocsps) {
    try {
      const response = pkijs.OCSPResponse.fromBER(der);
      const basic = pkijs.BasicOCSPResponse.fromBER(response.responseBytes!.response.valueBlock.valueHexView);
      const at = basic.tbsResponseData.responses[0]?.thisUpdate ?? new Date();
      if ((await checkOcspResponse(der, cert, issuer, at)) === null) return true;
    } catch {
      // not a usable response
    }
  }
  for (const der of dss.crls) {
    try {
      const crl = pkijs.CertificateRevocationList.fromBER(der);
      if ((await checkCrl(der, cert, issuer, crl.thisUpdate.value)) === null) return true;
    } catch {
      // not a usable CRL
    }
  }
  return false;
}

/**
 * Reads a sealed file's PAdES level from its bytes: B-B with a seal; B-T when the seal's CMS carries
 * a signature timestamp or a document timestamp follows the seal; B-LT when, on top, the DSS holds
 * revocation data (OCSP or CRL) for the seal certificate; B-LTA when a document timestamp follows a
 * revision whose DSS already held that data. The seal is the last CAdES / PKCS#7 signature (ours is
 * applied after everything else but DSS and document timestamps; a signature in an upload comes before).
 * Signatures' cryptographic validity is not re-checked here (readSeal / pdfsig do that).
 */
export async function evidenceOf(parts: Uint8Array[]): Promise<EvidenceReport> {
  const pdf = await IncrementalPdf.open(parts);
  const signatures = signaturesOf(pdf);
  const seal = lastSeal(signatures);
  const none: EvidenceReport = { level: null, signatureTimestamp: false, documentTimestamps: 0, revocationData: false };
  if (!seal) return none;
  const cms = cmsOf(seal.der);
  const signatureTimestamp = !!cms?.signerInfos[0]?.unsignedAttrs?.attributes.some((a) => a.type === SIGNATURE_TIMESTAMP);
  const docTimestamps = signatures.filter((s) => isDocTimestamp(s) && s.coveredLength > seal.coveredLength);
  const report: EvidenceReport = { level: "B-B", signatureTimestamp, documentTimestamps: docTimestamps.length, revocationData: false };
  if (!signatureTimestamp && docTimestamps.length === 0) return report;
  report.level = "B-T";
  const { cert, certs } = cms ? signerOf(cms) : { cert: null, certs: [] };
  if (!cert) return report;
  report.revocationData = await hasRevocationFor(readDss(pdf), cert, certs);
  if (!report.revocationData) return report;
  report.level = "B-LT";
  // B-LTA: a document timestamp over a revision whose DSS already held the seal's revocation data.
  for (const ts of docTimestamps) {
    const before = previousRevisionEnd(parts, ts.byteRange[1]);
    if (before <= seal.coveredLength) continue;
    const earlier = await IncrementalPdf.open(partsUpTo(parts, before));
    if (await hasRevocationFor(readDss(earlier), cert, certs)) {
      report.level = "B-LTA";
      break;
    }
  }
  return report;
}

/** `evidenceOf(parts).level`: the file's PAdES level, or null when it holds no seal. */
export async function evidenceLevelOf(parts: Uint8Array[]): Promise<EvidenceLevel | null> {
  return (await evidenceOf(parts)).level;
}

export type RaiseResult = { parts: Uint8Array[]; level: EvidenceLevel; shortfall?: string };

/**
 * Raises a sealed file towards `target` by incremental updates (earlier revisions, the seal included,
 * stay byte-identical): B-T by a document timestamp; B-LT by a /DSS with the seal's chain, the TSA's
 * chain and their revocation data (OCSP responses or CRLs fetched from where each certificate says);
 * B-LTA by a document timestamp over it all. Never throws for an unreachable or refusing TSA, OCSP
 * responder or CRL: it stops at the level reached and `shortfall` names why. A file with no seal is
 * sealed first (B-B, or B-T when the TSA answers). Called again later (once the TSA or responder is
 * back), it adds only what is still missing.
 */
export async function raiseEvidence(
  parts: Uint8Array[],
  input: { seal: SealKey; tsa?: TimestampAuthority; fetch?: typeof fetch; target: EvidenceLevel; signingTime?: Date },
): Promise<RaiseResult> {
  let current = [...parts];
  let report = await evidenceOf(current);
  const fetchOpts: RevocationFetch = { fetch: input.fetch ?? input.tsa?.fetch };
  if (report.level === null) {
    const sealed = await sealPdfPartsReporting(current, input.seal, { signingTime: input.signingTime ?? new Date(), tsa: input.tsa });
    current = sealed.parts;
    report = await evidenceOf(current);
  }
  let level = report.level ?? "B-B";
  const done = (shortfall?: string): RaiseResult => ({ parts: current, level, ...(shortfall && !atLeast(level, input.target) ? { shortfall } : {}) });
  if (atLeast(level, input.target)) return done();

  if (!atLeast(level, "B-T")) {
    if (!input.tsa) return done("no timestamp authority is configured (SEAL_TSA_URL)");
    const stamped = await addDocumentTimestamp(current, input.tsa);
    if (!stamped.ok) return done(stamped.reason);
    current = stamped.parts;
    level = "B-T";
    if (atLeast(level, input.target)) return done();
  }

  if (!atLeast(level, "B-LT")) {
    const gathered = await validationDataFor(current, input.seal, fetchOpts);
    if (!gathered.ok) return done(gathered.reason);
    current = await addDss(current, gathered.data, gathered.vri);
    level = "B-LT";
    if (atLeast(level, input.target)) return done();
  }

  if (!input.tsa) return done("no timestamp authority is configured (SEAL_TSA_URL)");
  const archived = await addDocumentTimestamp(current, input.tsa);
  if (!archived.ok) return done(archived.reason);
  current = archived.parts;
  level = "B-LTA";
  return done();
}

/**
 * The DSS content for a file's seal and timestamps: the seal chain, the TSA certificates found in the
 * file's timestamp tokens, each one's issuer, and revocation data for every certificate that is not a
 * root. The seal certificate's revocation data is required; a TSA certificate naming a source must
 * answer too (otherwise the validation data is incomplete and the shortfall says so).
 */
async function validationDataFor(
  parts: Uint8Array[],
  seal: SealKey,
  opts: RevocationFetch,
): Promise<{ ok: true; data: ValidationData; vri: { contents: Uint8Array; data: ValidationData }[] } | { ok: false; reason: string }> {
  const pdf = await IncrementalPdf.open(parts);
  const signatures = signaturesOf(pdf);
  const pool: pkijs.Certificate[] = [...seal.chain];
  // The certificate that made the file's seal (a key rotated since sealing is not the one to validate).
  const sealSignature = lastSeal(signatures);
  const sealCms = sealSignature ? cmsOf(sealSignature.der) : null;
  const signer = sealCms ? signerOf(sealCms) : { cert: null, certs: [] };
  const sealCert = signer.cert ?? seal.chain[0]!;
  if (!namesRevocationSource(sealCert)) return { ok: false, reason: "the seal certificate names no OCSP responder or CRL" };
  const tsaCerts: pkijs.Certificate[] = [];
  const addTo = (list: pkijs.Certificate[], c: pkijs.Certificate) => {
    const der = new Uint8Array(c.toSchema(true).toBER(false));
    if (!list.some((x) => sameBytes(new Uint8Array(x.toSchema(true).toBER(false)), der))) list.push(c);
  };
  for (const c of signer.certs) addTo(pool, c);
  const tokenCerts = (der: Uint8Array) => {
    const signed = cmsOf(der);
    const { cert, certs } = signed ? signerOf(signed) : { cert: null, certs: [] };
    for (const c of certs) addTo(pool, c);
    if (cert) addTo(tsaCerts, cert);
  };
  for (const s of signatures) {
    if (isDocTimestamp(s)) tokenCerts(s.der);
    else {
      const signed = cmsOf(s.der);
      for (const attr of signed?.signerInfos[0]?.unsignedAttrs?.attributes ?? []) {
        if (attr.type !== SIGNATURE_TIMESTAMP) continue;
        try {
          tokenCerts(new Uint8Array(attr.values[0].toBER(false)));
        } catch {
          // skip
        }
      }
    }
  }
  const data: ValidationData = { certs: [], ocsps: [], crls: [] };
  const keep = (list: Uint8Array[], der: Uint8Array) => {
    if (!list.some((x) => sameBytes(x, der))) list.push(der);
  };
  const sealVri: ValidationData = { certs: [], ocsps: [], crls: [] };
  // Every certificate on the way up from the seal and the TSAs, with its revocation data.
  const todo: { cert: pkijs.Certificate; forSeal: boolean }[] = [{ cert: sealCert, forSeal: true }, ...tsaCerts.map((cert) => ({ cert, forSeal: false }))];
  const done: pkijs.Certificate[] = [];
  for (let step = 0; step < 32 && todo.length > 0; step++) {
    const { cert, forSeal } = todo.shift()!;
    if (done.some((d) => sameBytes(new Uint8Array(d.toSchema(true).toBER(false)), new Uint8Array(cert.toSchema(true).toBER(false))))) continue;
    done.push(cert);
    const certDer = new Uint8Array(cert.toSchema(true).toBER(false));
    keep(data.certs, certDer);
    if (forSeal) keep(sealVri.certs, certDer);
    if (isSelfIssued(cert)) continue;
    const issuer = await issuerOf(cert, pool);
    if (!issuer) {
      if (forSeal) return { ok: false, reason: "the seal certificate's issuer is in neither the seal's CMS nor SEAL_CERTIFICATE's chain" };
      continue;
    }
    todo.push({ cert: issuer, forSeal });
    if (!namesRevocationSource(cert)) continue;
    const revocation = await fetchRevocation(cert, issuer, opts);
    if (!revocation.ok) return { ok: false, reason: `revocation data for "${commonNameOf(cert, "certificate")}" not obtained: ${revocation.reason}` };
    keep(revocation.kind === "ocsp" ? data.ocsps : data.crls, revocation.der);
    if (forSeal) keep(revocation.kind === "ocsp" ? sealVri.ocsps : sealVri.crls, revocation.der);
    // A delegated OCSP responder's certificate is validation data too.
    if (revocation.kind === "ocsp") {
      try {
        const basic = pkijs.BasicOCSPResponse.fromBER(pkijs.OCSPResponse.fromBER(revocation.der).responseBytes!.response.valueBlock.valueHexView);
        for (const c of basic.certs ?? []) keep(data.certs, new Uint8Array(c.toSchema(true).toBER(false)));
      } catch {
        // already checked readable
      }
    }
  }
  return { ok: true, data, vri: sealSignature ? [{ contents: sealSignature.contents, data: sealVri }] : [] };
}
