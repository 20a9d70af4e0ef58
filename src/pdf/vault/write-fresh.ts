import { PDFArray, PDFCrossRefSection, PDFDict, PDFHeader, PDFHexString, PDFRawStream, PDFRef, PDFStream, PDFTrailer, PDFTrailerDict, type PDFDocument, type PDFObject } from "pdf-lib";

/** A stream this long is written as a view of the bytes it was read from, not copied into the new file. */
const VIEW_BYTES = 64 * 1024;

/**
 * Writes `doc` as a new, complete file: one revision, a fresh cross-reference table, a new /ID, and
 * only the objects reachable from the catalog and the information dictionary (an object the edits
 * unlinked, such as a removed signature dictionary, is dropped, not carried along). Nothing of the
 * file it was read from is appended to or kept as a prefix: the bytes are laid out anew by pdf-lib's
 * writer's serialization. The file is returned as parts: small objects serialized into shared
 * buffers, and every stream of 64 KiB or more (page images, scans) as a view of the bytes it was read
 * from, so a 50 MB scan is not held twice (the parts are stored and hashed as they are, never joined).
 *
 * Costs a pass over every object of the document: unlike an incremental update, every object is
 * parsed and written (docs/decisions/re-serialized-copies.md measures it).
 */
export async function writeFreshPdf(doc: PDFDocument): Promise<Uint8Array[]> {
  await doc.flush();
  const context = doc.context;
  const reachable = new Set<PDFRef>();
  const pending: PDFObject[] = [context.trailerInfo.Root, context.trailerInfo.Info].filter((o): o is PDFObject => o !== undefined);
  while (pending.length > 0) {
    const object = pending.pop()!;
    if (object instanceof PDFRef) {
      if (reachable.has(object)) continue;
      const target = context.lookup(object);
      if (target === undefined) continue;
      reachable.add(object);
      pending.push(target);
    } else if (object instanceof PDFStream) {
      pending.push(object.dict);
    } else if (object instanceof PDFDict) {
      for (const [, value] of object.entries()) pending.push(value);
    } else if (object instanceof PDFArray) {
      for (let i = 0; i < object.size(); i++) pending.push(object.get(i));
    }
  }
  for (const [ref] of context.enumerateIndirectObjects()) if (!reachable.has(ref)) context.delete(ref);
  // A new file identifier (ISO 32000-1 14.4): the copy is a document of its own, not a version of the original.
  const id = () => PDFHexString.of([...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join(""));
  context.trailerInfo.ID = context.obj([id(), id()]);
  context.trailerInfo.Encrypt = undefined;
  return serializeAsParts(doc);
}

const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

/** pdf-lib's PDFWriter layout (header, `n g obj … endobj`, one xref table, trailer), as parts. */
function serializeAsParts(doc: PDFDocument): Uint8Array[] {
  const context = doc.context;
  const parts: Uint8Array[] = [];
  let small: Uint8Array[] = [];
  let offset = 0;
  const flushSmall = () => {
    if (small.length === 0) return;
    const joined = new Uint8Array(small.reduce((n, p) => n + p.byteLength, 0));
    let at = 0;
    for (const p of small) {
      joined.set(p, at);
      at += p.byteLength;
    }
    parts.push(joined);
    small = [];
  };
  const emit = (bytes: Uint8Array, view = false) => {
    if (view) {
      flushSmall();
      parts.push(bytes);
    } else small.push(bytes);
    offset += bytes.byteLength;
  };
  const serialized = (object: { sizeInBytes(): number; copyBytesInto(buffer: Uint8Array, offset: number): number }) => {
    const buffer = new Uint8Array(object.sizeInBytes());
    object.copyBytesInto(buffer, 0);
    return buffer;
  };

  emit(serialized(PDFHeader.forVersion(1, 7)));
  emit(latin1("\n\n"));
  const xref = PDFCrossRefSection.create();
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    xref.addEntry(ref, offset);
    emit(latin1(`${ref.objectNumber} ${ref.generationNumber} obj\n`));
    if (object instanceof PDFRawStream && object.contents.byteLength >= VIEW_BYTES) {
      emit(serialized(object.dict));
      emit(latin1("\nstream\n"));
      emit(object.contents, true);
      emit(latin1("\nendstream"));
    } else {
      emit(serialized(object));
    }
    emit(latin1("\nendobj\n\n"));
  }
  const xrefOffset = offset;
  emit(serialized(xref));
  emit(latin1("\n"));
  const trailerDict = PDFTrailerDict.of(
    context.obj({ Size: context.largestObjectNumber + 1, Root: context.trailerInfo.Root, Info: context.trailerInfo.Info, ID: context.trailerInfo.ID }),
  );
  emit(serialized(trailerDict));
  emit(latin1("\n\n"));
  emit(serialized(PDFTrailer.forLastCrossRefSectionOffset(xrefOffset)));
  flushSmall();
  return parts;
}
