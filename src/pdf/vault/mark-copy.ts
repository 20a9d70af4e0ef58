import { degrees, PDFName, PDFString, rgb, StandardFonts, type PDFDict } from "pdf-lib";
import { openVaultablePdf } from "./load-pdf";

export const COPY_MARKING = "NON-AUTHORITATIVE COPY";

export type CopyStamp = { vaultId: string; documentHash: string; envelopeId: string; markedAt: Date };

/**
 * Marks a non-authoritative copy of a vaulted PDF: "NON-AUTHORITATIVE COPY" across every page and a
 * footer naming the vault record and the authoritative SHA-256, plus the same statement in the
 * document information dictionary (Subject, Keywords and custom `VaultCopy` keys) for machines.
 *
 * The marking is written as a PDF incremental update appended to the original bytes, not as a
 * rewrite: the copy starts with the authoritative bytes unchanged, so any signature embedded in the
 * original still verifies in the copy (the marking shows as a later revision), and a 50 MB document
 * needs only its small update serialized rather than a second full-size buffer.
 *
 * Opens `original` here (415 if it is not a PDF, 422 if encrypted) with the shared incremental
 * writer (src/pdf/incremental/, which completion uses too): only the page tree and the
 * information dictionary are parsed, no stream is copied, and the caller keeps only the bytes to append.
 */
export async function markNonAuthoritativeCopy(
  original: Uint8Array,
  stamp: CopyStamp,
): Promise<{ update: Uint8Array; pageCount: number; pagesMarked: number }> {
  const pdf = await openVaultablePdf(original);
  const doc = pdf.doc;
  const context = doc.context;

  const font = await doc.embedFont(StandardFonts.HelveticaBold);
  const footer = `${COPY_MARKING} - not the authoritative copy (UCC 9-105). Vault record ${stamp.vaultId}; authoritative SHA-256 ${stamp.documentHash}`;
  let pagesMarked = 0;
  for (const page of doc.getPages()) {
    const box = page.getCropBox();
    const angle = Math.atan2(box.height, box.width);
    const diagonal = Math.hypot(box.width, box.height);
    const size = Math.max(8, (0.75 * diagonal * 24) / font.widthOfTextAtSize(COPY_MARKING, 24));
    const width = font.widthOfTextAtSize(COPY_MARKING, size);
    page.drawText(COPY_MARKING, {
      x: box.x + box.width / 2 - (width / 2) * Math.cos(angle) + (size / 3) * Math.sin(angle),
      y: box.y + box.height / 2 - (width / 2) * Math.sin(angle) - (size / 3) * Math.cos(angle),
      size,
      font,
      color: rgb(0.8, 0.1, 0.1),
      opacity: 0.25,
      rotate: degrees((angle * 180) / Math.PI),
    });
    const footerSize = Math.max(2, Math.min(6, (6 * (box.width - 24)) / font.widthOfTextAtSize(footer, 6)));
    page.drawText(footer, { x: box.x + 12, y: box.y + 8, size: footerSize, font, color: rgb(0.8, 0.1, 0.1) });
    pagesMarked += 1;
  }

  doc.setSubject(`${COPY_MARKING} of vault record ${stamp.vaultId} (envelope ${stamp.envelopeId})`);
  doc.setKeywords([COPY_MARKING, `vault:${stamp.vaultId}`, `sha256:${stamp.documentHash}`]);
  doc.setModificationDate(stamp.markedAt);
  const info = context.lookup(context.trailerInfo.Info) as PDFDict;
  info.set(PDFName.of("VaultCopy"), PDFString.of("non-authoritative"));
  info.set(PDFName.of("VaultRecordId"), PDFString.of(stamp.vaultId));
  info.set(PDFName.of("AuthoritativeSHA256"), PDFString.of(stamp.documentHash));

  return { update: await pdf.commit(), pageCount: doc.getPageCount(), pagesMarked };
}
