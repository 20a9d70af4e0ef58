import { PDFArray, PDFDict, PDFHexString, PDFRef, PDFStream, PDFWriter, type PDFDocument, type PDFObject } from "pdf-lib";

/**
 * Writes `doc` as a new, complete file: one revision, a fresh cross-reference table, a new /ID, and
 * only the objects reachable from the catalog and the information dictionary (an object the edits
 * unlinked, such as a removed signature dictionary, is dropped, not carried along). Nothing of the
 * file it was read from is appended to or kept as a prefix: the bytes are laid out anew by pdf-lib's
 * writer. Page content streams and images are written with the bytes they had (views, copied once).
 *
 * Costs a pass over every object of the document: unlike an incremental update, a 50 MB scan is
 * parsed and written whole (docs/decisions/re-serialized-copies.md measures it).
 */
export async function writeFreshPdf(doc: PDFDocument): Promise<Uint8Array> {
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
  return PDFWriter.forContext(context, Number.POSITIVE_INFINITY).serializeToBuffer();
}
