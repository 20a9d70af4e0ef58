import {
  degrees,
  PDFCrossRefSection,
  PDFCrossRefStream,
  PDFDocument,
  PDFName,
  PDFNumber,
  PDFRef,
  PDFStream,
  PDFString,
  PDFTrailer,
  PDFTrailerDict,
  rgb,
  StandardFonts,
  type PDFDict,
  type PDFObject,
} from "pdf-lib";
import { loadVaultablePdf } from "./load-pdf";

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
 * Parses `original` here (415 if it is not a PDF, 422 if encrypted), so that pdf-lib's parse, which
 * copies every stream, is garbage once this returns: the caller keeps only the bytes to append.
 */
export async function markNonAuthoritativeCopy(
  original: Uint8Array,
  stamp: CopyStamp,
): Promise<{ update: Uint8Array; pageCount: number; pagesMarked: number }> {
  const doc = await loadVaultablePdf(original);
  const context = doc.context;
  const previous = findLastXref(original);
  // New objects must not reuse numbers the original's cross-reference section lists as free.
  context.largestObjectNumber = Math.max(context.largestObjectNumber, previous.size - 1);
  const before = snapshot(doc);

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
  await doc.flush();

  return { update: serializeUpdate(doc, original, previous, changedObjects(doc, before)), pageCount: doc.getPageCount(), pagesMarked };
}

type PreviousXref = { offset: number; size: number; isStream: boolean };

const ascii = (bytes: Uint8Array, from: number, to: number) => {
  let s = "";
  for (let i = Math.max(0, from); i < Math.min(bytes.length, to); i++) s += String.fromCharCode(bytes[i]!);
  return s;
};

/** The last `startxref` offset, whether it points at a table or a stream, and the trailer's /Size. */
function findLastXref(bytes: Uint8Array): PreviousXref {
  const tail = ascii(bytes, bytes.length - 2048, bytes.length);
  const at = tail.lastIndexOf("startxref");
  const match = at >= 0 ? /^startxref\s+(\d+)/.exec(tail.slice(at)) : null;
  if (!match) throw new Error("PDF has no startxref");
  const offset = Number(match[1]);
  const isStream = !/^\s*xref/.test(ascii(bytes, offset, offset + 16));
  // The dictionary holding /Size: after the table, before `startxref`; or the xref stream's own.
  const dictText = isStream
    ? ascii(bytes, offset, offset + 4096).split("stream")[0]!
    : (() => {
        const region = ascii(bytes, bytes.length - 2048 - 4096, bytes.length - 2048 + at);
        return region.slice(region.lastIndexOf("trailer"));
      })();
  const size = Number(/\/Size\s+(\d+)/.exec(dictText)?.[1] ?? 0);
  return { offset, size, isStream };
}

/** How each indirect object serializes now; streams by their dictionary (their data is never edited). */
function snapshot(doc: PDFDocument): Map<string, string> {
  const out = new Map<string, string>();
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) out.set(ref.tag, describe(object));
  return out;
}

const describe = (object: PDFObject) => (object instanceof PDFStream ? object.dict.toString() : object.toString());

function changedObjects(doc: PDFDocument, before: Map<string, string>): [PDFRef, PDFObject][] {
  return doc.context.enumerateIndirectObjects().filter(([ref, object]) => before.get(ref.tag) !== describe(object));
}

const encoder = new TextEncoder();

function bytesOf(object: { sizeInBytes(): number; copyBytesInto(buffer: Uint8Array, offset: number): number }): Uint8Array {
  const buffer = new Uint8Array(object.sizeInBytes());
  object.copyBytesInto(buffer, 0);
  return buffer;
}

/**
 * The incremental update: the changed and new objects, then a cross-reference section of the same
 * kind as the original's last one (table or stream) with /Prev pointing at it, then the trailer.
 */
function serializeUpdate(doc: PDFDocument, original: Uint8Array, previous: PreviousXref, objects: [PDFRef, PDFObject][]): Uint8Array {
  const context = doc.context;
  const chunks: Uint8Array[] = [];
  let position = original.length;
  const push = (chunk: Uint8Array | string) => {
    const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
    chunks.push(bytes);
    position += bytes.length;
  };
  const last = original[original.length - 1];
  if (last !== 0x0a && last !== 0x0d) push("\n");

  const offsets: [PDFRef, number][] = [];
  for (const [ref, object] of objects) {
    offsets.push([ref, position]);
    push(`${ref.objectNumber} ${ref.generationNumber} obj\n`);
    push(bytesOf(object));
    push("\nendobj\n");
  }

  const trailer = {
    Root: context.trailerInfo.Root,
    Info: context.trailerInfo.Info,
    ID: context.trailerInfo.ID,
    Prev: PDFNumber.of(previous.offset),
  };
  const xrefOffset = position;
  if (previous.isStream) {
    const xrefRef = PDFRef.of(context.largestObjectNumber + 1);
    const stream = PDFCrossRefStream.create(context.obj({ ...trailer, Size: xrefRef.objectNumber + 1 }));
    for (const [ref, offset] of offsets) stream.addUncompressedEntry(ref, offset);
    stream.addUncompressedEntry(xrefRef, xrefOffset);
    push(`${xrefRef.objectNumber} 0 obj\n`);
    push(bytesOf(stream));
    push("\nendobj\n");
  } else {
    const section = PDFCrossRefSection.createEmpty();
    for (const [ref, offset] of offsets) section.addEntry(ref, offset);
    push(bytesOf(section));
    push(bytesOf(PDFTrailerDict.of(context.obj({ ...trailer, Size: context.largestObjectNumber + 1 }))));
    push("\n");
  }
  push(bytesOf(PDFTrailer.forLastCrossRefSectionOffset(xrefOffset)));
  push("\n");

  const update = new Uint8Array(position - original.length);
  let at = 0;
  for (const chunk of chunks) {
    update.set(chunk, at);
    at += chunk.length;
  }
  return update;
}
