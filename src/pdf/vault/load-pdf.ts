import { EncryptedPDFError } from "pdf-lib";
import { apiIssue } from "../../lib/validation";
import { unprocessable } from "../../lib/errors";
import { notAPdf, startsWithPdfHeader } from "../open-pdf";
import { assertWithinDecodeBudget } from "../budget/decode-budget";
import { IncrementalPdf } from "../incremental/incremental-pdf";

/**
 * A document the vault will hold, judged by its bytes, never by a declared content type: it must start
 * with the `%PDF-` header and open (cross-reference sections, catalog, page tree) to at least one page
 * (415 otherwise). Encrypted documents are refused with 422: their copy could not be stamped as
 * non-authoritative. Opened as an `IncrementalPdf`: only the objects read are parsed, and no stream's
 * bytes are copied, so a 50 MB scan costs little more than itself.
 */
export async function openVaultablePdf(bytes: Uint8Array): Promise<IncrementalPdf> {
  // At offset 0 exactly: the copy is written as an incremental update whose offsets assume it.
  if (!startsWithPdfHeader(bytes)) {
    throw notAPdf("the file does not start with the %PDF- header");
  }
  // Object streams are inflated when read: a decompression bomb is refused (413) before it parses.
  await assertWithinDecodeBudget(bytes);
  let pdf: IncrementalPdf;
  let pages: number;
  try {
    pdf = await IncrementalPdf.open([bytes]);
    pages = pdf.doc.getPageCount(); // walks the page tree: a document without a catalog fails here
  } catch (err) {
    if (err instanceof EncryptedPDFError) {
      const message = "Encrypted PDFs cannot be vaulted: the non-authoritative copy could not be marked. Upload the document without a password or permissions restriction";
      throw unprocessable(message, [apiIssue(["file"], "a PDF without encryption", "an encrypted PDF", message, "encrypted_pdf")]);
    }
    throw notAPdf("the file could not be parsed as a PDF");
  }
  if (pages < 1) throw notAPdf("the PDF has no pages");
  return pdf;
}

/** `openVaultablePdf`'s checks, for callers that only need the verdict. */
export async function loadVaultablePdf(bytes: Uint8Array): Promise<void> {
  await openVaultablePdf(bytes);
}
