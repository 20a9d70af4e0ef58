import { pdflibAddPlaceholder } from "@signpdf/placeholder-pdf-lib";
import { DEFAULT_BYTE_RANGE_PLACEHOLDER, findByteRange, SignPdfError, SUBFILTER_ETSI_CADES_DETACHED } from "@signpdf/utils";
import { sha256HexOfParts } from "../incremental/hash";
import { IncrementalPdf } from "../incremental/incremental-pdf";
import { pageAt, pageCount } from "../incremental/pages";
import { joinParts } from "../incremental/parts";
import { signDetachedDigest } from "./cms";
import type { SealKey } from "./seal-key";
import type { TimestampAuthority } from "./timestamp";

/** The service named in every seal's reason. */
export const SEAL_SERVICE = "esign-vault";
export const sealReason = () => `Sealed by ${SEAL_SERVICE} on completion`;

/** Bytes reserved for the CMS beyond the embedded certificates (signed attributes, signature, slack). */
const CMS_OVERHEAD_BYTES = 4096;

/** Room for an RFC 3161 token (the TSA's signature and certificate chain) when a TSA is configured. */
const TIMESTAMP_BYTES = 12288;

type SealInput = { signingTime: Date; tsa?: TimestampAuthority };

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
  const pdf = await IncrementalPdf.open(parts);
  const doc = pdf.doc;
  pdflibAddPlaceholder({
    pdfDoc: doc,
    pdfPage: pageAt(doc, pageCount(doc) - 1),
    reason: sealReason(),
    contactInfo: "",
    name: seal.commonName,
    location: "",
    signingTime: input.signingTime,
    // in hex digits (two per CMS byte), so always even: the placeholder's /Contents is that many characters
    signatureLength: 2 * (CMS_OVERHEAD_BYTES + seal.chainDer.reduce((n, c) => n + c.byteLength, 0) + (input.tsa ? TIMESTAMP_BYTES : 0)),
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    appName: SEAL_SERVICE,
  });
  const before = pdf.length;
  const update = await pdf.commit();
  const view = Buffer.from(update.buffer, update.byteOffset, update.byteLength);

  const { byteRangePlaceholder, byteRangePlaceholderPosition } = findByteRange(view, DEFAULT_BYTE_RANGE_PLACEHOLDER);
  if (!byteRangePlaceholder || byteRangePlaceholderPosition === undefined) throw new SignPdfError("No ByteRange placeholder in the seal's update", SignPdfError.TYPE_PARSE);
  const rangeEnd = byteRangePlaceholderPosition + byteRangePlaceholder.length;
  const open = view.indexOf("<", view.indexOf("/Contents ", rangeEnd));
  const close = view.indexOf(">", open);
  const total = pdf.length;
  const byteRange = [0, before + open, before + close + 1, total - (before + close + 1)];
  const actual = `/ByteRange [${byteRange.join(" ")}]`;
  if (actual.length > byteRangePlaceholder.length) throw new SignPdfError("The byte range does not fit its placeholder", SignPdfError.TYPE_INPUT);
  view.write(actual + " ".repeat(byteRangePlaceholder.length - actual.length), byteRangePlaceholderPosition, "latin1");

  // Everything but the /Contents hex string: the earlier parts whole, the update around it.
  const digestHex = await sha256HexOfParts([...parts, update.subarray(0, open), update.subarray(close + 1)]);
  const digest = Uint8Array.from(digestHex.match(/../g)!, (h) => parseInt(h, 16));
  const cms = await signDetachedDigest(seal, digest, { tsa: input.tsa });
  const room = close - open - 1;
  if (cms.byteLength * 2 > room) throw new SignPdfError(`Signature exceeds placeholder length: ${cms.byteLength * 2} > ${room}`, SignPdfError.TYPE_INPUT);
  // The placeholder holds NUL bytes: the whole string is written, padded with hex zeros as SignPdf does.
  view.write(Buffer.from(cms).toString("hex").padEnd(room, "0"), open + 1, "latin1");
  return pdf.parts;
}
