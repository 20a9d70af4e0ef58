import { PDFDocument, StandardFonts } from "pdf-lib";
import { extractText, getDocumentProxy, getMeta } from "unpdf";

/** A real PDF made with pdf-lib: `pages` pages, each with a line of text naming its number. */
export async function makePdf(opts: { pages?: number; title?: string; objectStreams?: boolean; text?: string } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.setTitle(opts.title ?? "Retail installment contract");
  for (let i = 1; i <= (opts.pages ?? 2); i++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`${opts.text ?? "Retail installment contract"} - page ${i}`, { x: 72, y: 700, size: 14, font });
  }
  return doc.save({ useObjectStreams: opts.objectStreams ?? true });
}

/** The text of every page, as pdf.js (unpdf) reads it. */
export async function pageTexts(bytes: Uint8Array): Promise<string[]> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { text } = await extractText(pdf, { mergePages: false });
  return text as string[];
}

export async function pdfInfo(bytes: Uint8Array): Promise<Record<string, unknown>> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  return (await getMeta(pdf)).info as Record<string, unknown>;
}

export { sha256Hex } from "../../src/lib/crypto";
