import { PDFArray, PDFDict, PDFName, PDFRawStream, PDFRef, type PDFObject } from "pdf-lib";
import { IncrementalPdf } from "../incremental/incremental-pdf";

/**
 * Where the data of each stream that is only ever an image starts, in the file's bytes. Images are the
 * one kind of stream neither pdf.js (text, anchors) nor pdf-lib decodes here, so a large scan may
 * inflate past the one-stream budget; anything else must not. A stream counts as an image only if its
 * own dictionary says `/Subtype /Image` AND every reference to it, from everything reachable from the
 * trailer, is an entry of an `/XObject` resource dictionary or an `/SMask` or `/Mask`: a stream that is
 * also a page's `/Contents`, a form, a font or a CMap is read as such and counted. The graph is read
 * through the cross-reference table (as pdf.js reads it) and lazily, copying no stream.
 * An offset is kept only if every object found there is image-only. Returns null when the graph cannot
 * be read in full: then nothing is exempt.
 * `beforeObjectStream` sees each object stream before it is inflated, so the caller can hold it to the
 * budget first.
 */
export async function imageOnlyStreamOffsets(bytes: Uint8Array, beforeObjectStream: (offset: number) => void): Promise<Set<number> | null> {
  let pdf: IncrementalPdf;
  try {
    pdf = await IncrementalPdf.open([bytes], { beforeObjectStream: (raw) => beforeObjectStream(offsetOf(raw)) });
  } catch (err) {
    if (isBudgetError(err)) throw err;
    return null;
  }
  const context = pdf.doc.context;
  const imageUses = new Map<PDFRef, boolean>(); // ref -> every use so far was an image use
  const visited = new Set<PDFObject>();
  const queue: { value: PDFObject; parentKey: string | null; grandKey: string | null }[] = [];
  for (const value of Object.values(context.trailerInfo)) if (value) queue.push({ value, parentKey: null, grandKey: null });
  try {
    while (queue.length) {
      const { value, parentKey, grandKey } = queue.pop()!;
      if (value instanceof PDFRef) {
        const asImage = grandKey === "XObject" || parentKey === "SMask" || parentKey === "Mask";
        imageUses.set(value, (imageUses.get(value) ?? true) && asImage);
        const target = context.lookup(value);
        if (target === undefined) return null;
        if (!visited.has(target)) queue.push({ value: target, parentKey, grandKey });
        continue;
      }
      if (visited.has(value)) continue;
      visited.add(value);
      const dict = value instanceof PDFRawStream ? value.dict : value instanceof PDFDict ? value : null;
      if (dict) for (const [key, v] of dict.entries()) queue.push({ value: v, parentKey: key.decodeText(), grandKey: parentKey });
      else if (value instanceof PDFArray) for (const v of value.asArray()) queue.push({ value: v, parentKey, grandKey });
    }
  } catch (err) {
    if (isBudgetError(err)) throw err;
    return null;
  }
  const verdict = new Map<number, boolean>();
  for (const [ref, onlyImage] of imageUses) {
    const stream = context.lookup(ref);
    if (!(stream instanceof PDFRawStream)) continue;
    const isImage = stream.dict.get(PDFName.of("Subtype")) === PDFName.of("Image") && onlyImage;
    const at = offsetOf(stream);
    verdict.set(at, (verdict.get(at) ?? true) && isImage);
  }
  return new Set([...verdict].filter(([, image]) => image).map(([at]) => at));

  function offsetOf(stream: PDFRawStream): number {
    const contents = stream.contents;
    return contents.buffer === bytes.buffer ? contents.byteOffset - bytes.byteOffset : -1;
  }
}

const isBudgetError = (err: unknown) => err instanceof Error && "status" in err && (err as { status: number }).status === 413;
