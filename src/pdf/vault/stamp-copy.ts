import { degrees, PDFName, PDFString, rgb, StandardFonts, type PDFDict } from "pdf-lib";
import { openVaultablePdf } from "./load-pdf";

/** What one kind of vault copy says on every page and in its information dictionary. */
export type CopyStampSpec = {
  /** the diagonal words across every page */
  marking: string;
  /** the footer line of every page */
  footer: string;
  color: { r: number; g: number; b: number };
  subject: string;
  keywords: string[];
  /** custom information-dictionary keys, for machines */
  info: Record<string, string>;
  at: Date;
};

/**
 * Stamps every page of a vaulted PDF with a diagonal marking and a footer, and writes the statement into
 * the document information dictionary, as a PDF incremental update appended to the original bytes, not
 * a rewrite: the copy starts with the authoritative bytes unchanged, so any signature embedded in the
 * original still verifies in the copy (the stamp shows as a later revision), and a 50 MB document needs
 * only its small update serialized. Opens `original` with the shared incremental writer (415 if it is
 * not a PDF, 422 if encrypted): only the page tree and the information dictionary are parsed. The
 * caller stores `[original, update]`.
 */
export async function stampCopy(original: Uint8Array, spec: CopyStampSpec): Promise<{ update: Uint8Array; pageCount: number; pagesMarked: number }> {
  const pdf = await openVaultablePdf(original);
  const doc = pdf.doc;
  const context = doc.context;
  const color = rgb(spec.color.r, spec.color.g, spec.color.b);
  const font = await doc.embedFont(StandardFonts.HelveticaBold);
  let pagesMarked = 0;
  for (const page of doc.getPages()) {
    const box = page.getCropBox();
    const angle = Math.atan2(box.height, box.width);
    const diagonal = Math.hypot(box.width, box.height);
    const size = Math.max(8, (0.75 * diagonal * 24) / font.widthOfTextAtSize(spec.marking, 24));
    const width = font.widthOfTextAtSize(spec.marking, size);
    page.drawText(spec.marking, {
      x: box.x + box.width / 2 - (width / 2) * Math.cos(angle) + (size / 3) * Math.sin(angle),
      y: box.y + box.height / 2 - (width / 2) * Math.sin(angle) - (size / 3) * Math.cos(angle),
      size,
      font,
      color,
      opacity: 0.25,
      rotate: degrees((angle * 180) / Math.PI),
    });
    const footerSize = Math.max(2, Math.min(6, (6 * (box.width - 24)) / font.widthOfTextAtSize(spec.footer, 6)));
    page.drawText(spec.footer, { x: box.x + 12, y: box.y + 8, size: footerSize, font, color });
    pagesMarked += 1;
  }
  doc.setSubject(spec.subject);
  doc.setKeywords(spec.keywords);
  doc.setModificationDate(spec.at);
  const info = context.lookup(context.trailerInfo.Info) as PDFDict;
  for (const [key, value] of Object.entries(spec.info)) info.set(PDFName.of(key), PDFString.of(value));
  return { update: await pdf.commit(), pageCount: doc.getPageCount(), pagesMarked };
}
