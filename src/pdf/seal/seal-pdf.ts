import { pdflibAddPlaceholder } from "@signpdf/placeholder-pdf-lib";
import { DEFAULT_BYTE_RANGE_PLACEHOLDER, SUBFILTER_ETSI_CADES_DETACHED } from "@signpdf/utils";
import { IncrementalPdf } from "../incremental/incremental-pdf";
import { pageAt, pageCount } from "../incremental/pages";
import { joinParts } from "../incremental/parts";
import { signDetachedDigest } from "./cms";
import type { SealKey } from "./seal-key";
import { commitSignature } from "./signature-slot";
import type { TimestampAuthority } from "./timestamp";

/** The service named in every seal's reason. */
export const SEAL_SERVICE = "esign-vault";
export const sealReason = () => `Sealed by ${SEAL_SERVICE} on completion`;

/** Bytes reserved for the CMS beyond the embedded certificates (signed attributes, signature, slack). */
const CMS_OVERHEAD_BYTES = 4096;

/** Room for an RFC 3161 token (the TSA's signature and certificate chain) when a TSA is configured. */
const TIMESTAMP_BYTES = 12288;

/** `reason`: the signature's /Reason, `sealReason()` unless given (a non-authoritative copy names the AC's hash). */
type SealInput = { signingTime: Date; tsa?: TimestampAuthority; reason?: string };

/** `sealPdfParts` for a file held whole (small documents, tests): the sealed file, joined. */
export async function sealPdf(bytes: Uint8Array, seal: SealKey, input: SealInput): Promise<Uint8Array> {
  return joinParts(await sealPdfParts([bytes], seal, input));
}

/**
 * Seals a completed PDF (PAdES baseline B-B): an invisible signature field on the last page whose
 * signature dictionary (ETSI.CAdES.detached, /M the signing time, /Reason, /Name the seal
 * certificate's subject) holds a CMS detached signature over the byte ranges, which cover the whole
 * file but the signature itself. With a timestamp authority, the signature carries its RFC 3161
 * token (B-T). The placeholder is sized to the certificate chain (and the token).
 *
 * The file is given and returned as parts (the original and its updates): the signature field, its
 * widget and the AcroForm change are appended as the last incremental update, so earlier revisions
 * stay byte-identical and the whole file is hashed in parts, never joined or rewritten. The
 * placeholder is @signpdf's (pdflibAddPlaceholder) and is found with its findByteRange, inside the
 * update; the byte ranges are filled and the CMS written in place there, as @signpdf's SignPdf does
 * on a whole buffer.
 */
export async function sealPdfParts(parts: Uint8Array[], seal: SealKey, input: SealInput): Promise<Uint8Array[]> {
  return sealWith(parts, seal, input, {});
}

/**
 * `sealPdfParts` that never fails for its TSA: with a TSA that cannot be reached or refuses, the seal
 * is made without the signature timestamp (B-B) and `shortfall` says why (a document timestamp added
 * later by `raiseEvidence` gives it B-T). Other failures (an unreadable PDF) still throw.
 */
export async function sealPdfPartsReporting(
  parts: Uint8Array[],
  seal: SealKey,
  input: SealInput,
): Promise<{ parts: Uint8Array[]; level: "B-B" | "B-T"; shortfall?: string }> {
  let shortfall: string | undefined;
  const sealed = await sealWith(parts, seal, input, { onTimestampFailure: (reason) => (shortfall = `signature timestamp not obtained: ${reason}`) });
  return { parts: sealed, level: input.tsa && !shortfall ? "B-T" : "B-B", ...(shortfall ? { shortfall } : {}) };
}

async function sealWith(parts: Uint8Array[], seal: SealKey, input: SealInput, options: { onTimestampFailure?: (reason: string) => void }): Promise<Uint8Array[]> {
  const pdf = await IncrementalPdf.open(parts);
  const doc = pdf.doc;
  pdflibAddPlaceholder({
    pdfDoc: doc,
    pdfPage: pageAt(doc, pageCount(doc) - 1),
    reason: input.reason ?? sealReason(),
    contactInfo: "",
    name: seal.commonName,
    location: "",
    signingTime: input.signingTime,
    // in hex digits (two per CMS byte), so always even: the placeholder's /Contents is that many characters
    signatureLength: 2 * (CMS_OVERHEAD_BYTES + seal.chainDer.reduce((n, c) => n + c.byteLength, 0) + (input.tsa ? TIMESTAMP_BYTES : 0)),
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    appName: SEAL_SERVICE,
  });
  return commitSignature(pdf, (digest) => signDetachedDigest(seal, digest, { tsa: input.tsa, ...options }), DEFAULT_BYTE_RANGE_PLACEHOLDER);
}
