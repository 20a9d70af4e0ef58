import { EncryptedPDFError, ParseSpeeds, PDFDocument } from "pdf-lib";
import { unprocessable } from "../../../lib/errors";
import { notAPdf, startsWithPdfHeader } from "../../../lib/pdf";
import { assertWithinDecodeBudget } from "../../../lib/pdf-budget";

/**
 * A document the vault will hold, judged by its bytes, never by a declared content type: it must start
 * with the `%PDF-` header and parse with pdf-lib to at least one page (415 otherwise). Encrypted
 * documents are refused with 422: their copy could not be stamped as non-authoritative.
 */
export async function loadVaultablePdf(bytes: Uint8Array): Promise<PDFDocument> {
  // At offset 0 exactly: the copy is written as an incremental update whose offsets assume it.
  if (!startsWithPdfHeader(bytes)) {
    throw notAPdf("the file does not start with the %PDF- header");
  }
  // pdf-lib inflates object streams in full: a decompression bomb is refused (413) before it parses.
  await assertWithinDecodeBudget(bytes);
  let doc: PDFDocument;
  let pages: number;
  try {
    doc = await PDFDocument.load(bytes, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
    pages = doc.getPageCount(); // walks the page tree: a document without a catalog fails here
  } catch (err) {
    if (err instanceof EncryptedPDFError) {
      throw unprocessable(
        "Encrypted PDFs cannot be vaulted: the non-authoritative copy could not be marked. Upload the document without a password or permissions restriction",
      );
    }
    throw notAPdf("the file could not be parsed as a PDF");
  }
  if (pages < 1) throw notAPdf("the PDF has no pages");
  return doc;
}
