import { findByteRange, SignPdfError } from "@signpdf/utils";
import { sha256HexOfParts } from "../incremental/hash";
import type { IncrementalPdf } from "../incremental/incremental-pdf";

/**
 * Commits the pending update of `pdf` (which holds one signature placeholder: @signpdf's
 * `/ByteRange [0 /********** …]` and a `/Contents <00…>` string), fills its byte ranges in place and
 * writes into /Contents what `sign` makes of the SHA-256 of everything but that string: the earlier
 * parts whole, the update around it (hashed in parts, never joined). `sign` may throw: the update is
 * then left with an empty signature, so callers work on a fresh IncrementalPdf per attempt.
 */
export async function commitSignature(pdf: IncrementalPdf, sign: (digest: Uint8Array) => Promise<Uint8Array>, placeholder: string): Promise<Uint8Array[]> {
  const parts = [...pdf.parts];
  const before = pdf.length;
  const update = await pdf.commit();
  const view = Buffer.from(update.buffer, update.byteOffset, update.byteLength);

  const { byteRangePlaceholder, byteRangePlaceholderPosition } = findByteRange(view, placeholder);
  if (!byteRangePlaceholder || byteRangePlaceholderPosition === undefined) throw new SignPdfError("No ByteRange placeholder in the signature's update", SignPdfError.TYPE_PARSE);
  const rangeEnd = byteRangePlaceholderPosition + byteRangePlaceholder.length;
  const open = view.indexOf("<", view.indexOf("/Contents ", rangeEnd));
  const close = view.indexOf(">", open);
  const total = pdf.length;
  const byteRange = [0, before + open, before + close + 1, total - (before + close + 1)];
  const actual = `/ByteRange [${byteRange.join(" ")}]`;
  if (actual.length > byteRangePlaceholder.length) throw new SignPdfError("The byte range does not fit its placeholder", SignPdfError.TYPE_INPUT);
  view.write(actual + " ".repeat(byteRangePlaceholder.length - actual.length), byteRangePlaceholderPosition, "latin1");

  const digestHex = await sha256HexOfParts([...parts, update.subarray(0, open), update.subarray(close + 1)]);
  const digest = Uint8Array.from(digestHex.match(/../g)!, (h) => parseInt(h, 16));
  const der = await sign(digest);
  const room = close - open - 1;
  if (der.byteLength * 2 > room) throw new SignPdfError(`Signature exceeds placeholder length: ${der.byteLength * 2} > ${room}`, SignPdfError.TYPE_INPUT);
  // The placeholder holds NUL bytes: the whole string is written, padded with hex zeros as SignPdf does.
  view.write(Buffer.from(der).toString("hex").padEnd(room, "0"), open + 1, "latin1");
  return pdf.parts;
}
