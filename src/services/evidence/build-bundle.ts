import { Zip, ZipDeflate, ZipPassThrough } from "fflate";
import * as pkijs from "pkijs";
import { sha256HexOfParts } from "../../lib/crypto";
import { GENESIS_HASH } from "../audit/chain";
import type { AuditLogRow } from "../audit/repository";
import { verifyScript } from "./verify-script";

/** An audit chain entry as the bundle lists it: every column of the row, `data` parsed. */
export type ChainEntry = Omit<AuditLogRow, "data"> & { data: Record<string, unknown> };

export type BundleInput = {
  envelope: { id: string; name: string };
  vaultId: string;
  source: "signed" | "upload";
  document: { bytes: Uint8Array; sha256: string };
  certificate: { json: unknown; pdf: Uint8Array | null };
  entries: ChainEntry[];
  /** the control history as GET …/control-history answers it, read from `entries` (vault/control-history.ts) */
  controlHistory: unknown[];
  /** the control attestation JWS over `entries`' head (null: the seal is not configured) */
  attestation: string | null;
  producedAt: string;
};

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
  const sealPem = sealCertificatesPem(input.document.bytes);
  const members: { name: string; bytes: Uint8Array; store?: boolean }[] = [
    { name: "document.pdf", bytes: input.document.bytes, store: true },
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
    { name: "control-history.json", bytes: pretty({ data: input.controlHistory }) },
    ...(input.attestation ? [{ name: "attestation.jws", bytes: encode(`${input.attestation}\n`) }] : []),
    {
      name: "manifest.json",
      bytes: pretty({
        bundle_version: 1,
        envelope_id: input.envelope.id,
        envelope_name: input.envelope.name,
        vault_id: input.vaultId,
        produced_at: input.producedAt,
        document: { file: "document.pdf", sha256: input.document.sha256, size_bytes: input.document.bytes.byteLength, source: input.source, sealed: sealPem !== null },
        audit_chain: { file: "audit-chain.json", entries: input.entries.length, head_hash: head?.hash ?? GENESIS_HASH },
        control_history: { file: "control-history.json", entries: input.controlHistory.length },
        attestation: input.attestation ? { file: "attestation.jws", format: "compact JWS, header x5c = the seal certificate chain" } : null,
      }),
    },
    { name: "verify.mjs", bytes: encode(verifyScript()) },
    { name: "README.md", bytes: encode(readme(input, sealPem !== null)) },
  ];

  const parts: Uint8Array[] = [];
  let failure: Error | null = null;
  let ended = false;
  const zip = new Zip((err, chunk, final) => {
    if (err) failure = err;
    else parts.push(chunk);
    if (final) ended = true;
  });
  const mtime = new Date(input.producedAt);
  for (const m of members) {
    const file = m.store ? new ZipPassThrough(m.name) : new ZipDeflate(m.name, { level: 6 });
    file.mtime = mtime;
    zip.add(file);
    file.push(m.bytes, true);
  }
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
    return certs.map((c) => pem(new Uint8Array(c.toSchema(true).toBER(false)))).join("");
  } catch {
    return null;
  }
}

function pem(der: Uint8Array): string {
  let b64 = "";
  for (let i = 0; i < der.length; i += 0x8000) b64 += String.fromCharCode(...der.subarray(i, i + 0x8000));
  b64 = btoa(b64);
  return `-----BEGIN CERTIFICATE-----\n${b64.replace(/.{64}/g, "$&\n").replace(/\n$/, "")}\n-----END CERTIFICATE-----\n`;
}

function readme(input: BundleInput, sealed: boolean): string {
  return `# Evidence bundle: ${input.envelope.name}

Envelope \`${input.envelope.id}\`, vault record \`${input.vaultId}\`, produced ${input.producedAt}.
Everything here can be checked offline, without trusting (or contacting) the service that produced it.

| File | What it is |
|---|---|
| document.pdf | The authoritative copy, byte for byte as vaulted (SHA-256 \`${input.document.sha256}\`). |
| certificate.json, certificate.pdf | The compliance certificate (UCC 9-105 / E-SIGN checks), as JSON and as rendered. |
| audit-chain.json | Every entry of the envelope's audit chain, in order, each with its hash and the previous entry's hash. |
${sealed ? "| seal-certificate.pem | The certificate chain of the PAdES seal on document.pdf, as embedded in its signature. |\n" : ""}| control-history.json | Who held control of the authoritative copy and how it moved (UCC 9-105): the control entries of audit-chain.json. |
${input.attestation ? "| attestation.jws | The service's signed statement of control as of the chain's head: a compact JWS by its seal key, the certificate chain in its x5c header. |\n" : ""}| manifest.json | What this bundle holds and the hashes it was built from. |
| verify.mjs | The offline verifier (Node.js 18+, built-ins only): also checks control-history.json against the chain and the attestation's signature and payload. |

## Check it

    node verify.mjs          # prints "verified" (exit 0) or the first broken link (exit 1)
    sha256sum document.pdf   # equals manifest.json document.sha256 and certificate.json document_hash
${sealed ? "    pdfsig document.pdf      # Poppler: the seal is valid and the total document is signed\n    openssl x509 -in seal-certificate.pem -noout -subject -issuer -dates -fingerprint -sha256\n" : ""}
${sealed ? "The seal proves that document.pdf has not changed since the service sealed it on completion, and who\nsealed it as far as its certificate can be trusted: a self-signed development certificate is trusted by\nno PDF viewer; production seals use a certificate from a CA on the Adobe Approved Trust List or the\norganization's own." : "This document was signed on paper and uploaded: it is vaulted exactly as uploaded and carries no seal\nof the service; its integrity rests on the SHA-256 recorded at vaulting and in the audit chain."}

The SHA-256 of this ZIP itself is recorded in the envelope's audit chain (action \`vault.evidence_bundle\`)
when the bundle is produced, so a later bundle's audit-chain.json lists this one.
`;
}
