import { PDFContentStream, PDFContext, PDFDict, PDFDocument, PDFStream, PDFRawStream, PDFRef, type PDFObject } from "pdf-lib";
import { Parts } from "./parts";
import { ObjectReader } from "./reader";
import { serializeUpdate } from "./writer";

/**
 * A PDF edited by incremental updates (ISO 32000-1 7.5.6): the file stays the list of its byte parts,
 * the original first and then each appended revision, never joined into one buffer, and never parsed
 * whole. pdf-lib's own `PDFDocument.load` parses every object and copies every stream's bytes (a
 * 50 MB scan costs 50 MB more); here the cross-reference sections are read (tables, streams, hybrid
 * files, the /Prev chain) and an object is parsed only when pdf-lib's code looks it up, with stream
 * contents as views of the original bytes. `doc` is an ordinary pdf-lib PDFDocument over that lazy
 * context, so pages are drawn on with pdf-lib's API; `commit()` then writes every object added or
 * changed since the last revision, with a cross-reference section of the original's kind (table or
 * stream) whose /Prev points at the previous one, and appends it as a new part.
 *
 * Used for completion (stamp, certificate page, seal: three revisions) and the vault's marked copy.
 */
export class IncrementalPdf {
  private constructor(
    readonly doc: PDFDocument,
    readonly parts: Uint8Array[],
    private previous: { offset: number | null; isStream: boolean },
    private readonly baseline: Map<PDFRef, string>,
  ) {}

  /**
   * Where the objects of a file whose cross-reference chain could not be read were found by scanning:
   * the first update then lists them all (a complete table, no /Prev), so the result is well formed.
   */
  private repair: Map<number, number> | null = null;

  /** The file's length: every part's. */
  get length(): number {
    return this.parts.reduce((n, p) => n + p.byteLength, 0);
  }

  /**
   * Opens the file made of `parts` (the original, possibly followed by updates). Throws like pdf-lib:
   * `EncryptedPDFError` for an encrypted document, another error when it cannot be read as a PDF.
   */
  static async open(parts: Uint8Array[], opts: { beforeObjectStream?: (raw: PDFRawStream) => void } = {}): Promise<IncrementalPdf> {
    const bytes = new Parts([...parts]);
    const context = PDFContext.create();
    const baseline = new Map<PDFRef, string>();
    const reader = new ObjectReader(bytes, context, opts.beforeObjectStream);
    const xref = reader.readXrefChain();
    const objects = new LazyObjects((ref) => reader.load(ref), baseline);
    (context as unknown as { indirectObjects: Map<PDFRef, PDFObject> }).indirectObjects = objects;
    context.trailerInfo = { Root: xref.trailer.Root, Info: xref.trailer.Info, ID: xref.trailer.ID, Encrypt: xref.trailer.Encrypt };
    // New objects must not reuse a number any revision listed (in use or free).
    context.largestObjectNumber = Math.max(xref.size - 1, reader.largestListed());
    if (!(context.lookup(context.trailerInfo.Root) instanceof PDFDict)) throw new Error("the PDF has no document catalog");
    const Ctor = PDFDocument as unknown as new (context: PDFContext, ignoreEncryption: boolean, updateMetadata: boolean) => PDFDocument;
    const doc = new Ctor(context, false, false);
    const pdf = new IncrementalPdf(doc, bytes.list, { offset: xref.repaired ? null : xref.startxref, isStream: xref.isStream }, baseline);
    pdf.repair = xref.repaired;
    return pdf;
  }

  /**
   * Appends the objects added or changed since the last commit as one incremental update and returns
   * it (also pushed onto `parts`). Fonts and images the document embedded are written first (flush).
   */
  async commit(): Promise<Uint8Array> {
    await this.doc.flush();
    const context = this.doc.context;
    const changed = context.enumerateIndirectObjects().filter(([ref, object]) => this.baseline.get(ref) !== describe(object));
    const update = serializeUpdate(context, this.length, this.parts[this.parts.length - 1]!, this.previous, changed, this.repair);
    this.repair = null;
    this.parts.push(update.bytes);
    this.previous = { offset: update.xrefOffset, isStream: this.previous.isStream };
    for (const [ref, object] of context.enumerateIndirectObjects()) this.baseline.set(ref, describe(object));
    return update.bytes;
  }
}

/** How an object serializes now; a stream by its dictionary (and a drawn content stream by its operator count). */
function describe(object: PDFObject): string {
  if (object instanceof PDFContentStream) return `${object.dict.toString()}#${(object as unknown as { operators: unknown[] }).operators.length}`;
  return object instanceof PDFStream ? object.dict.toString() : object.toString();
}

/** pdf-lib's object map, filled on first lookup; what an object was when read is kept to find the changed ones. */
class LazyObjects extends Map<PDFRef, PDFObject> {
  constructor(
    private readonly loader: (ref: PDFRef) => PDFObject | undefined,
    private readonly baseline: Map<PDFRef, string>,
  ) {
    super();
  }
  override get(ref: PDFRef): PDFObject | undefined {
    const have = super.get(ref);
    if (have !== undefined) return have;
    const loaded = this.loader(ref);
    if (loaded !== undefined) {
      super.set(ref, loaded);
      this.baseline.set(ref, describe(loaded));
    }
    return loaded;
  }
}
