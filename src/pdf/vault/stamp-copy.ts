import { degrees, PDFName, PDFString, rgb, StandardFonts, type PDFDict } from "pdf-lib";
import { flattenFormsAndSignatures } from "./flatten-signatures";
import { openVaultablePdf } from "./load-pdf";
import { writeFreshPdf } from "./write-fresh";

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
 * Makes a copy of a vaulted PDF that is a document of its own (never the original with an update
 * appended): the original's form fields and signatures are flattened to their appearance
 * (./flatten-signatures.ts: what a reader saw stays on the page, but no signature of the original is
 * left live, and its /DSS and /Perms go), every page gets a diagonal marking and a footer, the
 * statement goes into the document information dictionary, and the whole is written as a new file
 * with a new /ID (./write-fresh.ts). No prefix of the copy, and no run of its bytes, is the original.
 *
 * Opens `original` through the vault's guarded loader (415 if it is not a PDF, 413 past the decode
 * budget, 422 if encrypted). The caller seals the result (./seal-copy.ts).
 */
export async function stampCopy(original: Uint8Array, spec: CopyStampSpec): Promise<{ parts: Uint8Array[]; pageCount: number; pagesMarked: number }> {
  const pdf = await openVaultablePdf(original);
  const doc = pdf.doc;
  const context = doc.context;
  flattenFormsAndSignatures(doc);
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
  const pageCount = doc.getPageCount();
  return { parts: await writeFreshPdf(doc), pageCount, pagesMarked };
}
