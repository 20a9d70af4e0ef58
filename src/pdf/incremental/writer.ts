import { PDFContext, PDFCrossRefSection, PDFCrossRefStream, PDFNumber, PDFRef, PDFTrailer, PDFTrailerDict, type PDFObject } from "pdf-lib";

const encoder = new TextEncoder();

function bytesOf(object: { sizeInBytes(): number; copyBytesInto(buffer: Uint8Array, offset: number): number }): Uint8Array {
  const buffer = new Uint8Array(object.sizeInBytes());
  object.copyBytesInto(buffer, 0);
  return buffer;
}

/**
 * One incremental update: the objects, then a cross-reference section of the previous one's kind
 * (table or stream) with /Prev pointing at it, then the trailer and `startxref`.
 */
export function serializeUpdate(
  context: PDFContext,
  fileLength: number,
  lastPart: Uint8Array,
  previous: { offset: number | null; isStream: boolean },
  objects: [PDFRef, PDFObject][],
  repair: Map<number, number> | null,
): { bytes: Uint8Array; xrefOffset: number } {
  const chunks: Uint8Array[] = [];
  let position = fileLength;
  const push = (chunk: Uint8Array | string) => {
    const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
    chunks.push(bytes);
    position += bytes.length;
  };
  const last = lastPart[lastPart.length - 1];
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
    Prev: previous.offset === null ? undefined : PDFNumber.of(previous.offset),
  };
  const xrefOffset = position;
  if (previous.isStream) {
    const xrefRef = context.nextRef();
    const stream = PDFCrossRefStream.create(context.obj({ ...trailer, Size: xrefRef.objectNumber + 1 }));
    for (const [ref, offset] of offsets) stream.addUncompressedEntry(ref, offset);
    stream.addUncompressedEntry(xrefRef, xrefOffset);
    push(`${xrefRef.objectNumber} 0 obj\n`);
    push(bytesOf(stream));
    push("\nendobj\n");
  } else {
    const section = repair ? PDFCrossRefSection.create() : PDFCrossRefSection.createEmpty();
    const written = new Set(offsets.map(([ref]) => ref.objectNumber));
    const all: [PDFRef, number][] = [...offsets, ...[...(repair ?? [])].filter(([n]) => !written.has(n) && n > 0).map(([n, at]): [PDFRef, number] => [PDFRef.of(n), at])];
    all.sort((a, b) => a[0].objectNumber - b[0].objectNumber);
    for (const [ref, offset] of all) section.addEntry(ref, offset);
    push(bytesOf(section));
    push(bytesOf(PDFTrailerDict.of(context.obj({ ...trailer, Size: context.largestObjectNumber + 1 }))));
    push("\n");
  }
  push(bytesOf(PDFTrailer.forLastCrossRefSectionOffset(xrefOffset)));
  push("\n");

  const bytes = new Uint8Array(position - fileLength);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes, xrefOffset };
}
