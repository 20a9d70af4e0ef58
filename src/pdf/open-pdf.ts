import { PDFDocument } from "pdf-lib";
import { apiIssue } from "../lib/validation";
import { getDocumentProxy } from "unpdf";
import { ApiError } from "../lib/errors";

/** A rectangle on a page as the spec's Area: fractions of the displayed page, top-left origin, y down. */
export type Area = { page: number; x: number; y: number; w: number; h: number };

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

/**
 * The bytes say PDF: `%PDF-` within the first 1024 bytes (readers accept a short preamble, as the
 * PDF spec's implementation notes allow). The declared Content-Type of an upload proves nothing.
 */
export function hasPdfSignature(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length - PDF_MAGIC.length, 1024);
  outer: for (let i = 0; i <= end; i++) {
    for (let j = 0; j < PDF_MAGIC.length; j++) if (bytes[i + j] !== PDF_MAGIC[j]) continue outer;
    return true;
  }
  return false;
}

/** Stricter: the header at byte 0, as documents rewritten by appending (incremental updates) need. */
export function startsWithPdfHeader(bytes: Uint8Array): boolean {
  return bytes.byteLength >= PDF_MAGIC.length && PDF_MAGIC.every((b, i) => bytes[i] === b);
}

export const notAPdf = (detail?: string) =>
  new ApiError(415, "Unsupported media type: the file is not a PDF", detail ? { reason: detail } : undefined);

/**
 * "Is this really a PDF": the signature, then a full pdf-lib parse that must find at least one page.
 * pdf-lib copies every stream while parsing, so use it on documents that are about to be rewritten
 * anyway; `openPdf` is the lighter read.
 */
export async function assertPdf(bytes: Uint8Array): Promise<{ pageCount: number }> {
  if (!hasPdfSignature(bytes)) throw notAPdf("no %PDF- header");
  let pageCount: number;
  try {
    const doc = await PDFDocument.load(bytes, { updateMetadata: false, ignoreEncryption: true });
    pageCount = doc.getPageCount();
  } catch {
    throw notAPdf("the PDF structure could not be parsed");
  }
  if (pageCount < 1) throw notAPdf("the document has no pages");
  return { pageCount };
}

/** The part of pdf.js's document proxy this service uses (unpdf ships pdf.js built for Workers). */
export type PdfTextItem = {
  str: string;
  dir: string;
  transform: number[];
  width: number;
  height: number;
  fontName: string;
  hasEOL: boolean;
};
export type PdfViewport = {
  width: number;
  height: number;
  convertToViewportPoint(x: number, y: number): number[];
};
export type PdfPage = {
  getViewport(opts: { scale: number }): PdfViewport;
  getTextContent(): Promise<{
    items: (PdfTextItem | { type: string })[];
    styles: Record<string, { ascent?: number; descent?: number; fontFamily?: string; vertical?: boolean }>;
  }>;
  cleanup(): boolean;
};
export type PdfDocument = {
  numPages: number;
  getPage(pageNumber: number): Promise<PdfPage>;
  getData(): Promise<Uint8Array>;
  /** drops what pdf.js cached while parsing pages (fonts, parsed objects) on both of its sides */
  cleanup(): Promise<void>;
  /** destroying the loading task releases the document and everything pdf.js parsed from it */
  loadingTask: { destroy(): Promise<void> };
};

export const closePdf = (pdf: PdfDocument) => pdf.loadingTask.destroy();

/**
 * Opens a PDF with pdf.js, lazily: pages and their text are parsed only when asked for, and image
 * data is never decoded. pdf.js takes ownership of a Uint8Array that spans its whole buffer (the
 * buffer is detached) and copies any other view, so hand it bytes you no longer need.
 * Not a PDF: 415. Password-protected: 422.
 */
export async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  if (!hasPdfSignature(bytes)) throw notAPdf("no %PDF- header");
  try {
    const doc = await getDocumentProxy(bytes, {
      useSystemFonts: false,
      disableFontFace: true,
      stopAtErrors: false,
      verbosity: 0,
    });
    if (doc.numPages < 1) throw new Error("no pages");
    return doc as unknown as PdfDocument;
  } catch (err) {
    if (err instanceof Error && err.name === "PasswordException") {
      const message = "Password-protected PDFs cannot be used: remove the password and upload again";
      throw new ApiError(422, message, [apiIssue(["file"], "a PDF without a password", "a password-protected PDF", message, "encrypted_pdf")]);
    }
    throw notAPdf("the PDF structure could not be parsed");
  }
}
