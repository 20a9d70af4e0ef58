import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString, type PDFObject } from "pdf-lib";
import { IncrementalPdf } from "../incremental/incremental-pdf";
import { Parts } from "../incremental/parts";

/** A signature dictionary of the file, as found through the AcroForm's signature fields. */
export type PdfSignature = {
  /** /Type: `Sig` (a seal or signature) or `DocTimeStamp` */
  type: string | null;
  subFilter: string | null;
  byteRange: [number, number, number, number];
  /** the /Contents string decoded, padding included (what /VRI keys hash) */
  contents: Uint8Array;
  /** the DER inside /Contents (CMS SignedData or TimeStampToken), padding cut off */
  der: Uint8Array;
  /** how much of the file the signature covers: its revision's end */
  coveredLength: number;
};

/** A DER element's length (tag, length octets and content) at the start of `bytes`, or the whole when unreadable. */
export function derLength(bytes: Uint8Array): number {
  if (bytes.length < 2) return bytes.length;
  const first = bytes[1]!;
  if (first < 0x80) return 2 + first;
  const n = first & 0x7f;
  if (n === 0 || n > 4 || bytes.length < 2 + n) return bytes.length;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + bytes[2 + i]!;
  return Math.min(bytes.length, 2 + n + len);
}

const nameOf = (o: PDFObject | undefined): string | null => (o instanceof PDFName ? o.decodeText() : null);

/** Every signature (seals, signatures, document timestamps) of a file, in the order they were applied (by coverage). */
export async function readSignatures(parts: Uint8Array[]): Promise<PdfSignature[]> {
  return signaturesOf(await IncrementalPdf.open(parts));
}

export function signaturesOf(pdf: IncrementalPdf): PdfSignature[] {
  const context = pdf.doc.context;
  const lookup = (o: PDFObject | undefined) => (o instanceof PDFRef ? context.lookup(o) : o);
  const acroForm = lookup(pdf.doc.catalog.get(PDFName.of("AcroForm")));
  if (!(acroForm instanceof PDFDict)) return [];
  const out: PdfSignature[] = [];
  const seen = new Set<PDFObject>();
  const visit = (o: PDFObject | undefined, depth: number) => {
    const field = lookup(o);
    if (!(field instanceof PDFDict) || seen.has(field) || depth > 32) return;
    seen.add(field);
    const kids = lookup(field.get(PDFName.of("Kids")));
    if (kids instanceof PDFArray) for (let i = 0; i < kids.size(); i++) visit(kids.get(i), depth + 1);
    const v = lookup(field.get(PDFName.of("V")));
    if (!(v instanceof PDFDict) || seen.has(v)) return;
    seen.add(v);
    const range = lookup(v.get(PDFName.of("ByteRange")));
    const contents = lookup(v.get(PDFName.of("Contents")));
    if (!(range instanceof PDFArray) || range.size() !== 4) return;
    const br = [0, 1, 2, 3].map((i) => lookup(range.get(i))).map((x) => (x instanceof PDFNumber ? x.asNumber() : NaN)) as [number, number, number, number];
    if (br.some((x) => !Number.isFinite(x))) return;
    const bytes = contents instanceof PDFHexString || contents instanceof PDFString ? contents.asBytes() : new Uint8Array();
    out.push({
      type: nameOf(v.get(PDFName.of("Type"))),
      subFilter: nameOf(v.get(PDFName.of("SubFilter"))),
      byteRange: br,
      contents: bytes,
      der: bytes.subarray(0, derLength(bytes)),
      coveredLength: br[2] + br[3],
    });
  };
  const fields = lookup(acroForm.get(PDFName.of("Fields")));
  if (fields instanceof PDFArray) for (let i = 0; i < fields.size(); i++) visit(fields.get(i), 0);
  return out.sort((a, b) => a.coveredLength - b.coveredLength);
}

/** The file's parts cut at `length` (views, nothing copied). */
export function partsUpTo(parts: Uint8Array[], length: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const p of parts) {
    if (at >= length) break;
    out.push(at + p.byteLength <= length ? p : p.subarray(0, length - at));
    at += p.byteLength;
  }
  return out;
}

/**
 * The end of the revision before the one holding `offset` (just past its `%%EOF` and end of line),
 * found by searching back from `offset`; 0 when there is none.
 */
export function previousRevisionEnd(parts: Uint8Array[], offset: number): number {
  const bytes = new Parts(parts);
  const window = 8192;
  for (let to = offset; to > 0; to -= window - 8) {
    const from = Math.max(0, to - window);
    const text = bytes.text(from, to);
    const at = text.lastIndexOf("%%EOF");
    if (at >= 0) {
      let end = from + at + 5;
      const tail = bytes.text(end, end + 2);
      if (tail.startsWith("\r\n")) end += 2;
      else if (tail.startsWith("\n") || tail.startsWith("\r")) end += 1;
      return end;
    }
  }
  return 0;
}
