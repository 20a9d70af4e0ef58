import { degrees, PDFName, PDFString, rgb, StandardFonts, type PDFDict } from "pdf-lib";
import { openVaultablePdf } from "./load-pdf";

export const PAPER_MARKING = "CONVERTED TO PAPER";

export type PaperStamp = { vaultId: string; documentHash: string; envelopeId: string; convertedAt: Date };

/**
 * Stamps a copy of a vaulted PDF as converted to paper (DESIGN.md 9, paper-out): "CONVERTED TO PAPER"
 * across every page and a footer saying the electronic record is no longer authoritative, naming the
 * vault record, the authoritative SHA-256 and the date of conversion, plus the same statement in the
 * document information dictionary (Subject, Keywords and custom `VaultCopy`, `VaultRecordId`,
 * `AuthoritativeSHA256`, `ConvertedToPaperAt` keys) for machines.
 *
 * Like `markNonAuthoritativeCopy`, an incremental update appended to the original bytes (the caller
 * stores `[original, update]`): the authoritative bytes stay unchanged at the start of the copy, so an
 * embedded signature still verifies, and only the small update is serialized. The stamp draws only
 * fixed ASCII text (no caller's free text), so any document that could be vaulted can be stamped.
 */
export async function markConvertedToPaper(
  original: Uint8Array,
  stamp: PaperStamp,
): Promise<{ update: Uint8Array; pageCount: number; pagesMarked: number }> {
  const pdf = await openVaultablePdf(original);
  const doc = pdf.doc;
  const context = doc.context;
  const day = stamp.convertedAt.toISOString().slice(0, 10);

  const font = await doc.embedFont(StandardFonts.HelveticaBold);
  const footer = `${PAPER_MARKING} on ${day}: this electronic record is no longer authoritative (UCC 9-105). Vault record ${stamp.vaultId}; authoritative SHA-256 ${stamp.documentHash}`;
  let pagesMarked = 0;
  for (const page of doc.getPages()) {
    const box = page.getCropBox();
    const angle = Math.atan2(box.height, box.width);
    const diagonal = Math.hypot(box.width, box.height);
    const size = Math.max(8, (0.75 * diagonal * 24) / font.widthOfTextAtSize(PAPER_MARKING, 24));
    const width = font.widthOfTextAtSize(PAPER_MARKING, size);
    page.drawText(PAPER_MARKING, {
      x: box.x + box.width / 2 - (width / 2) * Math.cos(angle) + (size / 3) * Math.sin(angle),
      y: box.y + box.height / 2 - (width / 2) * Math.sin(angle) - (size / 3) * Math.cos(angle),
      size,
      font,
      color: rgb(0.1, 0.2, 0.7),
      opacity: 0.25,
      rotate: degrees((angle * 180) / Math.PI),
    });
    const footerSize = Math.max(2, Math.min(6, (6 * (box.width - 24)) / font.widthOfTextAtSize(footer, 6)));
    page.drawText(footer, { x: box.x + 12, y: box.y + 8, size: footerSize, font, color: rgb(0.1, 0.2, 0.7) });
    pagesMarked += 1;
  }

  doc.setSubject(`${PAPER_MARKING}: vault record ${stamp.vaultId} (envelope ${stamp.envelopeId}) is no longer authoritative in electronic form`);
  doc.setKeywords([PAPER_MARKING, `vault:${stamp.vaultId}`, `sha256:${stamp.documentHash}`]);
  doc.setModificationDate(stamp.convertedAt);
  const info = context.lookup(context.trailerInfo.Info) as PDFDict;
  info.set(PDFName.of("VaultCopy"), PDFString.of("converted-to-paper"));
  info.set(PDFName.of("VaultRecordId"), PDFString.of(stamp.vaultId));
  info.set(PDFName.of("AuthoritativeSHA256"), PDFString.of(stamp.documentHash));
  info.set(PDFName.of("ConvertedToPaperAt"), PDFString.of(stamp.convertedAt.toISOString()));

  return { update: await pdf.commit(), pageCount: doc.getPageCount(), pagesMarked };
}
