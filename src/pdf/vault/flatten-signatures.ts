import {
  concatTransformationMatrix,
  drawObject,
  PDFArray,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFRef,
  PDFStream,
  popGraphicsState,
  pushGraphicsState,
  type PDFDocument,
  type PDFObject,
} from "pdf-lib";

/** Annotation flags (ISO 32000-1 12.5.3) that keep a widget off the page. */
const HIDDEN = 1 << 1;
const NO_VIEW = 1 << 5;

/**
 * Turns a document's form fields, signature fields included, into plain page content: each widget's
 * normal appearance (the picture a viewer shows of a field or a signature) is drawn onto its page as a
 * form XObject where the widget sat, then the widget annotation is taken off the page. Then the catalog
 * loses `/AcroForm` (the fields and their values: a signature's `/V` with its `/ByteRange` and CMS),
 * `/DSS` (validation data) and `/Perms` (DocMDP), so nothing of the original's signatures is left to
 * validate: a copy shows them, it does not carry them. Other annotations (links, comments) stay.
 *
 * Returns how many widgets were drawn. Works on any pdf-lib document, including the lazy one of
 * `IncrementalPdf`: only pages, their annotations and the appearances are read.
 */
export function flattenFormsAndSignatures(doc: PDFDocument): number {
  const context = doc.context;
  const lookup = (o: PDFObject | undefined) => (o instanceof PDFRef ? context.lookup(o) : o);
  const num = (o: PDFObject | undefined) => {
    const v = lookup(o);
    return v instanceof PDFNumber ? v.asNumber() : NaN;
  };
  let drawn = 0;
  for (const page of doc.getPages()) {
    const annots = lookup(page.node.get(PDFName.of("Annots")));
    if (!(annots instanceof PDFArray)) continue;
    const kept: PDFObject[] = [];
    for (let i = 0; i < annots.size(); i++) {
      const entry = annots.get(i);
      const annot = lookup(entry);
      if (!(annot instanceof PDFDict) || lookup(annot.get(PDFName.of("Subtype")))?.toString() !== "/Widget") {
        kept.push(entry);
        continue;
      }
      const flags = num(annot.get(PDFName.of("F")));
      if (Number.isFinite(flags) && flags & (HIDDEN | NO_VIEW)) continue;
      const appearance = normalAppearance(annot, lookup);
      const rect = lookup(annot.get(PDFName.of("Rect")));
      if (!appearance || !(rect instanceof PDFArray) || rect.size() !== 4) continue;
      const [x1, y1, x2, y2] = [0, 1, 2, 3].map((k) => num(rect.get(k))) as [number, number, number, number];
      const target = { x: Math.min(x1, x2), y: Math.min(y1, y2), w: Math.abs(x2 - x1), h: Math.abs(y2 - y1) };
      const box = transformedBBox(appearance.stream, num);
      if (!box || !(target.w > 0) || !(target.h > 0) || !(box.w > 0) || !(box.h > 0)) continue;
      // ISO 32000-1 12.5.5: the appearance's box (after its own /Matrix) is fitted to the annotation's /Rect.
      const sx = target.w / box.w;
      const sy = target.h / box.h;
      appearance.stream.dict.set(PDFName.of("Type"), PDFName.of("XObject"));
      appearance.stream.dict.set(PDFName.of("Subtype"), PDFName.of("Form"));
      const name = page.node.newXObject("FlatWidget", appearance.ref ?? context.register(appearance.stream));
      page.pushOperators(pushGraphicsState(), concatTransformationMatrix(sx, 0, 0, sy, target.x - box.x * sx, target.y - box.y * sy), drawObject(name), popGraphicsState());
      drawn += 1;
    }
    if (kept.length === annots.size()) continue;
    if (kept.length === 0) page.node.delete(PDFName.of("Annots"));
    else page.node.set(PDFName.of("Annots"), context.obj(kept));
  }
  for (const key of ["AcroForm", "DSS", "Perms"]) doc.catalog.delete(PDFName.of(key));
  return drawn;
}

/** The widget's normal appearance stream (`/AP /N`, or its `/AS` state), and its reference when it has one. */
function normalAppearance(annot: PDFDict, lookup: (o: PDFObject | undefined) => PDFObject | undefined): { stream: PDFStream; ref: PDFRef | null } | null {
  const ap = lookup(annot.get(PDFName.of("AP")));
  if (!(ap instanceof PDFDict)) return null;
  let entry = ap.get(PDFName.of("N"));
  let value = lookup(entry);
  if (value instanceof PDFDict && !(value instanceof PDFStream)) {
    const state = lookup(annot.get(PDFName.of("AS")));
    if (!(state instanceof PDFName)) return null;
    entry = value.get(state);
    value = lookup(entry);
  }
  if (!(value instanceof PDFStream)) return null;
  return { stream: value, ref: entry instanceof PDFRef ? entry : null };
}

/** The appearance's /BBox mapped through its /Matrix, as an upright box. */
function transformedBBox(stream: PDFStream, num: (o: PDFObject | undefined) => number): { x: number; y: number; w: number; h: number } | null {
  const bbox = stream.dict.get(PDFName.of("BBox"));
  const matrix = stream.dict.get(PDFName.of("Matrix"));
  if (!(bbox instanceof PDFArray) || bbox.size() !== 4) return null;
  const [bx1, by1, bx2, by2] = [0, 1, 2, 3].map((k) => num(bbox.get(k))) as [number, number, number, number];
  const m = matrix instanceof PDFArray && matrix.size() === 6 ? [0, 1, 2, 3, 4, 5].map((k) => num(matrix.get(k))) : [1, 0, 0, 1, 0, 0];
  if ([bx1, by1, bx2, by2, ...m].some((v) => !Number.isFinite(v))) return null;
  const [a, b, c, d, e, f] = m as [number, number, number, number, number, number];
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [x, y] of [[bx1, by1], [bx1, by2], [bx2, by1], [bx2, by2]] as const) {
    xs.push(a * x + c * y + e);
    ys.push(b * x + d * y + f);
  }
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y };
}
