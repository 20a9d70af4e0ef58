import { Zip, ZipDeflate, ZipPassThrough } from "fflate";
import * as pkijs from "pkijs";
import { requestTimestamp, type SealKey, type TimestampAuthority } from "../../pdf";
import { sha256Hex, sha256HexOfParts } from "../../lib/crypto";
import { attestationAlg, signWithSeal } from "./attestation";
import { certificatePem } from "./pem";
import { GENESIS_HASH } from "../audit/chain";
import type { AuditLogRow } from "../audit/repository";
import { verifyScript } from "./verify-script";
import { bundleEvidenceRecord, hashTreeRoot, readEvidenceRecord } from "./evidence-record";
import { requestTimestampForDigest } from "../../pdf/seal/timestamp";

/** An audit chain entry as the bundle lists it: every column of the row, `data` parsed. */
export type ChainEntry = Omit<AuditLogRow, "data"> & { data: Record<string, unknown> };

/** The bundle's format: 3 carries the form (authoritative or copy), the key history and the members' evidence record. */
export const BUNDLE_VERSION = 3;

export type BundleInput = {
  envelope: { id: string; name: string };
  vaultId: string;
  source: "signed" | "upload";
  /**
   * `authoritative`: the controller's bundle, carrying the authoritative copy as document.pdf.
   * `copy`: every other party's, carrying the marked copy as copy.pdf and the authoritative copy's
   * SHA-256 only (its bytes never reach a non-controller).
   */
  form: "authoritative" | "copy";
  /** the authoritative copy: its bytes only in the authoritative form */
  document: { bytes: Uint8Array | null; sha256: string; sizeBytes: number };
  /** the marked copy (the object at the vault record's copy_key), in the copy form */
  copy?: { bytes: Uint8Array } | null;
  /** the control-key history of every organization that acted on control (key-history.json) */
  keyHistory: KeyHistory;
  certificate: { json: unknown; pdf: Uint8Array | null };
  entries: ChainEntry[];
  /** the control history as GET …/control-history answers it, read from `entries` (vault/control-history.ts) */
  controlHistory: unknown[];
  /** the control attestation JWS over `entries`' head (null: the seal is not configured) */
  attestation: string | null;
  producedAt: string;
  /** the level the authoritative copy reached (vault_records.evidence_level) */
  evidenceLevel?: string | null;
  /** signs manifest.json (manifest.jws); the bundle is never produced unsigned */
  seal: SealKey;
  /** with SEAL_TSA_URL: manifest.tsr, an RFC 3161 token over the JWS signature (a TSA failure is a 502) */
  tsa?: TimestampAuthority;
  /**
   * the record's current RFC 4998 evidence record (DER) as stored: null until the renewal job made one.
   * With a TSA, the bundle's `evidence-record.ers` extends it by a timestamp over every member.
   */
  evidenceRecord?: Uint8Array | null;
  /**
   * the files signers attached (attachment fields: docs/decisions/attachments.md), each a member of its
   * own (`attachment-<field>.<ext>`, flat: verify.mjs reads one directory) listed and hashed by the manifest
   */
  attachments?: BundleAttachment[];
};

export type BundleAttachment = { field: string; role: string; filename: string; content_type: string; sha256: string; bytes: Uint8Array };

const ATTACHMENT_EXT: Record<string, string> = { "application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png" };

/** Each attachment's member name: the field's name made safe for a file name (ZIP and every file system), unique. */
function attachmentMembers(list: BundleAttachment[]): { name: string; a: BundleAttachment }[] {
  const taken = new Set<string>();
  return list.map((a) => {
    const stem = `attachment-${a.field.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80)}`;
    let name = `${stem}.${ATTACHMENT_EXT[a.content_type] ?? "bin"}`;
    for (let n = 2; taken.has(name); n++) name = `${stem}-${n}.${ATTACHMENT_EXT[a.content_type] ?? "bin"}`;
    taken.add(name);
    return { name, a };
  });
}

/** key-history.json: each organization's control-key events (adds, deletes, operator recoveries), oldest first. */
export type KeyHistory = {
  organizations: {
    org_id: string;
    name: string | null;
    events: {
      action: "control_key.added" | "control_key.deleted" | "control_key.recovered";
      at: string;
      kid?: string;
      alg?: string;
      /** the public key (added keys): from the entry, or from the key still registered */
      jwk?: Record<string, unknown> | null;
      removed?: string[];
      control_signature?: { kid: string; jws: string } | null;
      actor: { type: string; id: string | null; name?: string | null };
      audit_entry: { id: string; seq: number; hash: string };
    }[];
  }[];
};

export const MANIFEST_TYP = "evidence-manifest+jws";

/** The ZIP as it left fflate's streaming encoder, chunk by chunk (never joined), with its SHA-256. */
export type BuiltBundle = { parts: Uint8Array[]; sizeBytes: number; sha256: string };

const encode = (text: string) => new TextEncoder().encode(text);
const pretty = (value: unknown) => encode(`${JSON.stringify(value, null, 2)}\n`);

/**
 * Builds an envelope's evidence bundle with fflate's streaming Zip: the PDF stored as is (already
 * compressed), the text members deflated. Every member carries the production time as its date.
 */
export async function buildEvidenceBundle(input: BundleInput): Promise<BuiltBundle> {
  const head = input.entries.at(-1);
  const pdf = input.form === "authoritative" ? input.document.bytes : (input.copy?.bytes ?? null);
  // a copy bundle whose stored copy could not be separated from the authoritative copy carries no PDF
  if (!pdf && input.form === "authoritative") throw new Error("evidence bundle: no authoritative copy to carry");
  const pdfName = input.form === "authoritative" ? "document.pdf" : "copy.pdf";
  const sealPem = pdf ? sealCertificatesPem(pdf) : null;
  const sealSha256 = await sha256Hex(input.seal.chainDer[0]!);
  const controlHistory = pretty({ data: input.controlHistory });
  const attached = attachmentMembers(input.attachments ?? []);
  const covered: { name: string; bytes: Uint8Array; store?: boolean }[] = [
    ...(pdf ? [{ name: pdfName, bytes: pdf, store: true }] : []),
    { name: "certificate.json", bytes: pretty(input.certificate.json) },
    ...(input.certificate.pdf ? [{ name: "certificate.pdf", bytes: input.certificate.pdf, store: true }] : []),
    {
      name: "audit-chain.json",
      bytes: pretty({
        chain_id: input.envelope.id,
        hash_algorithm: "SHA-256",
        hashing:
          "each entry's hash is the SHA-256 (lower-case hex) of the entry without its `hash` member, as canonical JSON: object keys sorted, no whitespace; the first entry's prev_hash is genesis_hash",
        genesis_hash: GENESIS_HASH,
        entries_count: input.entries.length,
        head_hash: head?.hash ?? GENESIS_HASH,
        entries: input.entries,
      }),
    },
    ...(sealPem ? [{ name: "seal-certificate.pem", bytes: encode(sealPem) }] : []),
    { name: "control-history.json", bytes: controlHistory },
    { name: "key-history.json", bytes: pretty(input.keyHistory) },
    ...(input.attestation ? [{ name: "attestation.jws", bytes: encode(`${input.attestation}\n`) }] : []),
    ...attached.map(({ name, a }) => ({ name, bytes: a.bytes, store: a.content_type !== "application/pdf" })),
    { name: "verify.mjs", bytes: encode(verifyScript()) },
    { name: "README.md", bytes: encode(readme(input, sealPem !== null, sealSha256)) },
  ];
  // The evidence record: with a TSA, the stored record extended by an archive timestamp whose reduced
  // hash tree covers every member above (and the stored record); without one, the stored record as is.
  let evidenceRecord: Uint8Array | null = input.evidenceRecord ?? null;
  let recordCovers: "members" | "document" | null = evidenceRecord ? "document" : null;
  if (input.tsa) {
    const leaves = await Promise.all(covered.map(async (m) => new Uint8Array(await crypto.subtle.digest("SHA-256", m.bytes))));
    if (input.evidenceRecord) leaves.push(new Uint8Array(await crypto.subtle.digest("SHA-256", input.evidenceRecord)));
    const token = await requestTimestampForDigest(input.tsa, await hashTreeRoot(leaves));
    const stored = input.evidenceRecord ? readEvidenceRecord(input.evidenceRecord) : null;
    evidenceRecord = bundleEvidenceRecord(stored, leaves, new Uint8Array(token.toSchema().toBER(false)));
    recordCovers = "members";
  }
  if (evidenceRecord) covered.push({ name: "evidence-record.ers", bytes: evidenceRecord, store: true });
  const fileHashes = await Promise.all(covered.map(async (m) => ({ name: m.name, sha256: await sha256Hex(m.bytes), size_bytes: m.bytes.byteLength })));
  const hashOf = (name: string) => fileHashes.find((f) => f.name === name)?.sha256 ?? null;
  const manifest = pretty({
    bundle_version: BUNDLE_VERSION,
    form: input.form,
    envelope_id: input.envelope.id,
    envelope_name: input.envelope.name,
    vault_id: input.vaultId,
    produced_at: input.producedAt,
    document: {
      file: input.form === "authoritative" ? "document.pdf" : null,
      sha256: input.document.sha256,
      size_bytes: input.document.sizeBytes,
      source: input.source,
      sealed: input.form === "authoritative" ? sealPem !== null : input.source === "signed",
      ...(input.evidenceLevel ? { evidence_level: input.evidenceLevel } : {}),
    },
    copy:
      input.form === "copy" && pdf
        ? { file: "copy.pdf", sha256: hashOf("copy.pdf"), size_bytes: pdf.byteLength, of_document_sha256: input.document.sha256, sealed: sealPem !== null }
        : null,
    audit_chain: { file: "audit-chain.json", genesis_hash: GENESIS_HASH, entries: input.entries.length, head_hash: head?.hash ?? GENESIS_HASH },
    control_history: { file: "control-history.json", entries: input.controlHistory.length, sha256: hashOf("control-history.json") },
    key_history: { file: "key-history.json", organizations: input.keyHistory.organizations.length, sha256: hashOf("key-history.json") },
    attestation: input.attestation ? { file: "attestation.jws", sha256: hashOf("attestation.jws"), format: "compact JWS, header x5c = the seal certificate chain" } : null,
    evidence_record: evidenceRecord
      ? {
          file: "evidence-record.ers",
          sha256: hashOf("evidence-record.ers"),
          stored_sha256: input.evidenceRecord ? await sha256Hex(input.evidenceRecord) : null,
          covers: recordCovers,
          format:
            recordCovers === "members"
              ? "RFC 4998 EvidenceRecord (DER): the stored renewal chain (archive timestamps over document.sha256, each renewal over the previous timestamp), then one archive timestamp whose reduced hash tree (one group) holds the SHA-256 of every other member listed in files and of the stored record"
              : "RFC 4998 EvidenceRecord (DER): archive timestamps over document.sha256, each renewal over the previous timestamp",
        }
      : null,
    seal_certificate: { sha256: sealSha256, subject_common_name: input.seal.commonName },
    signature: {
      file: "manifest.jws",
      format: `compact JWS (${attestationAlg(input.seal.privateKey)}) whose payload is this file byte for byte; header x5c = the seal certificate chain`,
      timestamp: input.tsa ? "manifest.tsr" : null,
    },
    ...(attached.length
      ? {
          attachments: attached.map(({ name, a }) => ({ file: name, field: a.field, role: a.role, filename: a.filename, content_type: a.content_type, sha256: hashOf(name), size_bytes: a.bytes.byteLength })),
        }
      : {}),
    files: fileHashes,
  });
  const jws = await signWithSeal(input.seal, manifest, MANIFEST_TYP);
  let tsr: Uint8Array | null = null;
  if (input.tsa) {
    const signature = base64urlDecode(jws.split(".")[2]!);
    const token = await requestTimestamp(input.tsa, signature);
    tsr = new Uint8Array(token.toSchema().toBER(false));
  }
  const members = [
    ...covered,
    { name: "manifest.json", bytes: manifest },
    { name: "manifest.jws", bytes: encode(`${jws}\n`) },
    ...(tsr ? [{ name: "manifest.tsr", bytes: tsr, store: true }] : []),
  ];

  const parts: Uint8Array[] = [];
  let failure: Error | null = null;
  let ended = false;
  const zip = new Zip((err, chunk, final) => {
    if (err) failure = err;
    else parts.push(chunk);
    if (final) ended = true;
  });
  addZipMembers(zip, members, new Date(input.producedAt));
  zip.end();
  if (failure) throw failure;
  if (!ended) throw new Error("evidence bundle: the ZIP stream did not finish");
  return { parts, sizeBytes: parts.reduce((n, p) => n + p.byteLength, 0), sha256: await sha256HexOfParts(parts) };
}

/** The certificates embedded in the PDF's seal (CMS SignedData), as PEM; null when it is not sealed. */
export function sealCertificatesPem(pdf: Uint8Array): string | null {
  const text = new TextDecoder("latin1").decode(pdf);
  const range = /\/ByteRange\s*\[\s*0\s+(\d+)\s+(\d+)\s+\d+\s*\]/.exec(text);
  if (!range) return null;
  // the whole placeholder, padding included: the DER parser reads one element and ignores the zeros after it
  // (stripping trailing "00"s would eat the signature's own last byte, or split a byte ending in 0)
  const hex = text.slice(Number(range[1]) + 1, Number(range[2]) - 1);
  try {
    const der = Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
    const signed = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(der).content });
    const certs = (signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
    if (certs.length === 0) return null;
    return certs.map((c) => certificatePem(new Uint8Array(c.toSchema(true).toBER(false)))).join("");
  } catch {
    return null;
  }
}

const base64urlDecode = (part: string) => {
  const b64 = part.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
};

function readme(input: BundleInput, sealed: boolean, sealSha256: string): string {
  const copy = input.form === "copy";
  const pdf = copy ? "copy.pdf" : "document.pdf";
  const carried = !copy || !!input.copy;
  const record = input.tsa || input.evidenceRecord;
  return `# Evidence bundle: ${input.envelope.name}

Envelope \`${input.envelope.id}\`, vault record \`${input.vaultId}\`, produced ${input.producedAt}.
Everything here can be checked offline, without trusting (or contacting) the service that produced it.
${copy ? "\nThis is a party's bundle, not the controller's: the authoritative copy belongs to the controller alone (UCC 9-105),\nso this bundle carries the marked copy and the authoritative copy's SHA-256, never its bytes.\n" : ""}
| File | What it is |
|---|---|
${carried ? `| ${pdf} | ${copy ? `A marked, non-authoritative copy of the authoritative copy whose SHA-256 is \`${input.document.sha256}\`, sealed by the service as a copy.` : `The authoritative copy, byte for byte as vaulted (SHA-256 \`${input.document.sha256}\`).`} |\n` : "| (no PDF) | The stored marked copy began with the authoritative copy's bytes, so it is left out: this bundle carries the authoritative copy's SHA-256 only. |\n"}| certificate.json, certificate.pdf | The compliance certificate (UCC 9-105 / E-SIGN checks), as JSON and as rendered. |
| audit-chain.json | Every entry of the envelope's audit chain, in order, each with its hash and the previous entry's hash. |
${sealed ? `| seal-certificate.pem | The certificate chain of the PAdES seal on ${pdf}, as embedded in its signature. |\n` : ""}| control-history.json | Who held control of the authoritative copy and how it moved (UCC 9-105): the control entries of audit-chain.json. |
| key-history.json | The control keys of every organization that acted on control: each key added or deleted (with its Control-Signature) and each recovery by the operator (with its audit entry). |
${input.attestation ? "| attestation.jws | The service's signed statement of control as of the chain's head: a compact JWS by its seal key, the certificate chain in its x5c header. |\n" : ""}${record ? `| evidence-record.ers | An RFC 4998 evidence record: the stored record's timestamps over the authoritative copy's SHA-256 (renewed before each TSA certificate expired)${input.tsa ? ", and a timestamp whose reduced hash tree covers every other file the manifest lists" : ""}. |\n` : ""}| manifest.json | What this bundle holds: the vault id, the document hash, the audit chain's head and length, and the SHA-256 of every other file. |
| manifest.jws | manifest.json signed by the service's seal key: a compact JWS whose payload is manifest.json byte for byte, the seal certificate chain in its x5c header. |
${input.tsa ? "| manifest.tsr | An RFC 3161 timestamp token over manifest.jws's signature: when the manifest existed, by the timestamp authority. |\n" : ""}| verify.mjs | The offline verifier (Node.js 18+, built-ins only). |

## Check it

First check the verifier itself: its SHA-256 must be the one the service publishes
(\`GET /api/v2/evidence/verifier\`, docs/evidence.md), from a source you trust:

    sha256sum verify.mjs

Then:

    node verify.mjs --seal-sha256 <fingerprint> [--tsa-sha256 <fingerprint>]
    # "verified" (exit 0), what does not match (exit 1), no seal pinned (exit 2),
    # verified but a timestamp's authority not pinned: "timestamp not pinned" (exit 3)

Take the fingerprints from a source you trust, never from this bundle: the service publishes its seal
certificates at \`GET /api/v2/seal-certificates\` (this manifest was signed by \`${sealSha256}\`); the
timestamp authority's certificate (or its CA's) comes from the TSA. The verifier checks the manifest's
signature, every file against the signed manifest, the audit chain from its genesis to the signed head,
the control history and every move's Control-Signature against the key history, the PDF's seal, the
control attestation, and every RFC 3161 timestamp (the TSA's signature and certificate path). It prints
the bundle's production time and the attestation's time.
Without \`--seal-sha256\` it refuses (exit 2).
${copy ? "" : "\n    sha256sum document.pdf   # equals manifest.json document.sha256 and certificate.json document_hash\n"}${sealed ? `    pdfsig ${pdf}      # Poppler: the seal is valid\n    openssl x509 -in seal-certificate.pem -noout -subject -issuer -dates -fingerprint -sha256\n` : ""}
${sealed ? `The seal proves that ${pdf} has not changed since the service sealed it, and who sealed it as far as\nits certificate can be trusted: a self-signed development certificate is trusted by no PDF viewer;\nproduction seals use a certificate from a CA on the Adobe Approved Trust List or the organization's own.` : "This document was signed on paper and uploaded: it is vaulted exactly as uploaded and carries no seal\nof the service; its integrity rests on the SHA-256 recorded at vaulting and in the audit chain."}

The SHA-256 of this ZIP itself is recorded in the envelope's audit chain (action \`vault.evidence_bundle\`)
when the bundle is produced, so a later bundle's audit-chain.json lists this one.
`;
}

/** Adds each member to a ZIP being written, whole: deflated, or stored as it is (`store`: already compressed). */
export function addZipMembers(zip: Zip, members: { name: string; bytes: Uint8Array; store?: boolean }[], mtime: Date) {
  for (const m of members) {
    const file = m.store ? new ZipPassThrough(m.name) : new ZipDeflate(m.name, { level: 6 });
    file.mtime = mtime;
    zip.add(file);
    file.push(m.bytes, true);
  }
}
