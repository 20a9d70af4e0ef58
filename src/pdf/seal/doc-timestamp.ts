import { PDFArray, PDFDict, PDFHexString, PDFInvalidObject, PDFName, PDFNumber, PDFString } from "pdf-lib";
import { ANNOTATION_FLAGS, SIG_FLAGS } from "@signpdf/utils";
import { IncrementalPdf } from "../incremental/incremental-pdf";
import { pageAt } from "../incremental/pages";
import { commitSignature } from "./signature-slot";
import { tryTimestampForDigest, type TimestampAuthority } from "./timestamp";

/** The byte-range placeholder of a document timestamp (distinct from the seal's, found the same way). */
const PLACEHOLDER = "**DocTS***";

/** Room for the TSA's token (its signature and certificate chain) in the /Contents string, in bytes. */
const TOKEN_BYTES = 16384;

export type DocTimestampResult = { ok: true; parts: Uint8Array[] } | { ok: false; reason: string };

/**
 * Appends a document timestamp (ISO 32000-2 12.8.5, PAdES B-LTA; ETSI EN 319 142-1 5.4.3): a signature
 * field whose dictionary is `/Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161`
 * with /Contents the TSA's TimeStampToken over the SHA-256 of the byte ranges, which cover the whole
 * file but that token. One incremental update: every earlier signature stays valid for its revision.
 * An invisible widget on the first page, named `DocTimeStamp<n>`.
 *
 * Never throws for the TSA: `{ ok: false, reason }` when it cannot be reached or refuses (the parts
 * given are then unchanged). A PDF that cannot be read still throws.
 */
export async function addDocumentTimestamp(parts: Uint8Array[], tsa: TimestampAuthority): Promise<DocTimestampResult> {
  const pdf = await IncrementalPdf.open(parts);
  const doc = pdf.doc;
  const context = doc.context;
  const page = pageAt(doc, 0);
  if (!page) throw new Error("the PDF has no page");

  const byteRange = PDFArray.withContext(context);
  byteRange.push(PDFNumber.of(0));
  for (let i = 0; i < 3; i++) byteRange.push(PDFName.of(PLACEHOLDER));
  const sigDict = context.obj({
    Type: "DocTimeStamp",
    Filter: "Adobe.PPKLite",
    SubFilter: "ETSI.RFC3161",
    ByteRange: byteRange,
    Contents: PDFHexString.of("00".repeat(TOKEN_BYTES)),
  });
  // As @signpdf does: written verbatim (never into an object stream), so the placeholder is found in the update.
  const raw = new Uint8Array(sigDict.sizeInBytes());
  sigDict.copyBytesInto(raw, 0);
  const sigRef = context.register(PDFInvalidObject.of(raw));

  const acroFormObj = doc.catalog.lookupMaybe(PDFName.of("AcroForm"), PDFDict);
  const acroForm = acroFormObj ?? (context.obj({ Fields: [] }) as PDFDict);
  if (!acroFormObj) doc.catalog.set(PDFName.of("AcroForm"), context.register(acroForm));
  let fields = acroForm.lookupMaybe(PDFName.of("Fields"), PDFArray);
  if (!fields) {
    fields = context.obj([]) as PDFArray;
    acroForm.set(PDFName.of("Fields"), fields);
  }
  const flags = acroForm.lookupMaybe(PDFName.of("SigFlags"), PDFNumber)?.asNumber() ?? 0;
  acroForm.set(PDFName.of("SigFlags"), PDFNumber.of(flags | SIG_FLAGS.SIGNATURES_EXIST | SIG_FLAGS.APPEND_ONLY));

  const widget = context.obj({
    Type: "Annot",
    Subtype: "Widget",
    FT: "Sig",
    Rect: [0, 0, 0, 0],
    V: sigRef,
    T: PDFString.of(`DocTimeStamp${fields.size() + 1}`),
    F: ANNOTATION_FLAGS.PRINT,
    P: page.ref,
  });
  const widgetRef = context.register(widget);
  const annots = page.node.lookupMaybe(PDFName.of("Annots"), PDFArray) ?? (context.obj([]) as PDFArray);
  annots.push(widgetRef);
  page.node.set(PDFName.of("Annots"), annots);
  fields.push(widgetRef);

  let failure: string | null = null;
  const signed = await commitSignature(
    pdf,
    async (digest) => {
      const result = await tryTimestampForDigest(tsa, digest);
      if (!result.ok) {
        failure = result.reason;
        return new Uint8Array();
      }
      return result.der;
    },
    PLACEHOLDER,
  );
  if (failure) return { ok: false, reason: `document timestamp not obtained: ${failure}` };
  return { ok: true, parts: signed };
}
