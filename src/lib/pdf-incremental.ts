import {
  decodePDFRawStream,
  PDFContentStream,
  PDFContext,
  PDFCrossRefSection,
  PDFCrossRefStream,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  PDFObjectParser,
  PDFPage,
  PDFPageLeaf,
  PDFPageTree,
  PDFRawStream,
  PDFRef,
  PDFStream,
  PDFTrailer,
  PDFTrailerDict,
  PDFXRefStreamParser,
  type PDFObject,
} from "pdf-lib";

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

/** The file's bytes as parts; offsets are the file's. Objects never straddle parts (each update starts afresh). */
class Parts {
  readonly starts: number[] = [];
  readonly length: number;
  constructor(readonly list: Uint8Array[]) {
    let n = 0;
    for (const p of list) {
      this.starts.push(n);
      n += p.byteLength;
    }
    this.length = n;
  }
  /** The bytes from `offset` to the end of the part holding it (a view). */
  from(offset: number): Uint8Array {
    for (let i = this.list.length - 1; i >= 0; i--) {
      if (offset >= this.starts[i]!) return this.list[i]!.subarray(offset - this.starts[i]!);
    }
    throw new Error(`offset ${offset} outside the file`);
  }
  /** Latin-1 text of [from, to), across parts (small windows only). */
  text(from: number, to: number): string {
    let s = "";
    for (let at = Math.max(0, from); at < Math.min(this.length, to); ) {
      const view = this.from(at);
      const n = Math.min(view.byteLength, to - at);
      for (let i = 0; i < n; i++) s += String.fromCharCode(view[i]!);
      at += n;
    }
    return s;
  }
}

type Entry = { offset: number } | { stream: number; index: number } | null;
type Trailer = { Root?: PDFObject; Info?: PDFObject; ID?: PDFObject; Encrypt?: PDFObject };

/** Reads cross-reference sections and single objects out of `Parts`, copying no stream's bytes. */
class ObjectReader {
  private readonly entries = new Map<number, Entry>();
  private readonly objectStreams = new Map<number, Map<number, PDFObject>>();
  private scanned: Map<number, number> | null = null;

  constructor(
    private readonly bytes: Parts,
    private readonly context: PDFContext,
    /** sees an object stream before it is inflated (the decode budget's check) */
    private readonly beforeObjectStream?: (raw: PDFRawStream) => void,
  ) {}

  largestListed(): number {
    let n = 0;
    for (const k of this.entries.keys()) n = Math.max(n, k);
    for (const k of this.scanned?.keys() ?? []) n = Math.max(n, k);
    return n;
  }

  /** Follows startxref and every /Prev (and /XRefStm); the newest entry of an object wins. */
  readXrefChain(): { trailer: Trailer; size: number; startxref: number; isStream: boolean; repaired: Map<number, number> | null } {
    const tail = this.bytes.text(this.bytes.length - 1024, this.bytes.length);
    const at = tail.lastIndexOf("startxref");
    const match = at >= 0 ? /^startxref\s+(\d+)/.exec(tail.slice(at)) : null;
    if (!match) throw new Error("the PDF has no startxref");
    const startxref = Number(match[1]);
    let isStream = !/^\s*xref/.test(this.bytes.text(startxref, startxref + 32));
    let trailer: Trailer | null = null;
    let size = 0;
    const seen = new Set<number>();
    let offset: number | null = startxref;
    try {
      while (offset !== null && !seen.has(offset) && offset < this.bytes.length) {
        seen.add(offset);
        const dict = this.readSection(offset);
        if (!trailer) trailer = { Root: dict.get(PDFName.of("Root")), Info: dict.get(PDFName.of("Info")), ID: dict.get(PDFName.of("ID")), Encrypt: dict.get(PDFName.of("Encrypt")) };
        size = Math.max(size, numberOf(dict.get(PDFName.of("Size"))) ?? 0);
        const stm = numberOf(dict.get(PDFName.of("XRefStm")));
        if (stm !== null && !seen.has(stm)) {
          seen.add(stm);
          this.readSection(stm);
        }
        offset = numberOf(dict.get(PDFName.of("Prev")));
      }
    } catch {
      // A damaged cross-reference chain: the objects are found by scanning the file instead.
      this.scan();
    }
    if (!trailer?.Root) {
      this.scan();
      trailer = { ...trailer, Root: trailer?.Root ?? this.findCatalog() };
    }
    // A damaged chain: the update written on it is a complete table of what the scan found.
    if (this.scanned) isStream = false;
    return { trailer, size, startxref, isStream, repaired: this.scanned };
  }

  /** One cross-reference table (and its trailer) or stream at `offset`; returns the trailer dictionary. */
  private readSection(offset: number): PDFDict {
    const head = this.bytes.text(offset, offset + 32);
    if (/^\s*xref/.test(head)) return this.readTable(offset);
    const stream = this.parseObjectAt(offset, null);
    if (!(stream instanceof PDFRawStream)) throw new Error(`no cross-reference section at ${offset}`);
    const parser = PDFXRefStreamParser.forStream(stream) as unknown as { parseEntries(): { ref: PDFRef; offset: number; deleted: boolean; inObjectStream: boolean }[] };
    for (const e of parser.parseEntries()) {
      if (this.entries.has(e.ref.objectNumber)) continue;
      this.entries.set(
        e.ref.objectNumber,
        e.deleted ? null : e.inObjectStream ? { stream: e.offset, index: e.ref.generationNumber } : { offset: e.offset },
      );
    }
    return stream.dict;
  }

  private readTable(offset: number): PDFDict {
    const view = this.bytes.from(offset);
    let i = 0;
    const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
    const token = (): string => {
      while (i < view.length && isSpace(view[i]!)) i++;
      const start = i;
      while (i < view.length && !isSpace(view[i]!)) i++;
      let s = "";
      for (let k = start; k < i; k++) s += String.fromCharCode(view[k]!);
      return s;
    };
    if (token() !== "xref") throw new Error("no xref keyword");
    for (;;) {
      const mark = i;
      const first = token();
      if (first.startsWith("trailer")) {
        i = mark;
        while (view[i] !== 0x74 /* t */) i++;
        i += "trailer".length;
        break;
      }
      const count = Number(token());
      if (!/^\d+$/.test(first) || !Number.isInteger(count)) throw new Error("bad xref subsection");
      for (let n = 0; n < count; n++) {
        const at = Number(token());
        token(); // generation
        const kind = token();
        const number = Number(first) + n;
        if (!this.entries.has(number)) this.entries.set(number, kind === "n" ? { offset: at } : null);
      }
    }
    const parser = PDFObjectParser.forBytes(view.subarray(i), this.context);
    const dict = parser.parseObject();
    if (!(dict instanceof PDFDict)) throw new Error("no trailer dictionary");
    return dict;
  }

  load(ref: PDFRef): PDFObject | undefined {
    const n = ref.objectNumber;
    const entry = this.entries.get(n);
    if (entry && "stream" in entry) return this.fromObjectStream(entry.stream, n);
    if (entry) {
      try {
        return this.parseObjectAt(entry.offset, n);
      } catch {
        // a wrong offset: fall through to the scan
      }
    }
    if (entry === null && !this.scanned) return undefined;
    const at = this.scan().get(n);
    return at === undefined ? undefined : this.parseObjectAt(at, n);
  }

  private parseObjectAt(offset: number, expected: number | null): PDFObject {
    const view = this.bytes.from(offset);
    const header = /^\s*(\d+)\s+(\d+)\s+obj/.exec(latin1(view, 0, 48));
    if (!header || (expected !== null && Number(header[1]) !== expected)) throw new Error(`object ${expected} not at ${offset}`);
    const parser = PDFObjectParser.forBytes(view.subarray(header[0].length), this.context);
    // Stream contents as views of the file rather than copies (pdf-lib's ByteStream.slice copies).
    const stream = (parser as unknown as { bytes: { bytes: Uint8Array; slice(a: number, b: number): Uint8Array } }).bytes;
    stream.slice = (a: number, b: number) => stream.bytes.subarray(a, b);
    return parser.parseObject();
  }

  private fromObjectStream(number: number, wanted: number): PDFObject | undefined {
    let objects = this.objectStreams.get(number);
    if (!objects) {
      objects = new Map();
      this.objectStreams.set(number, objects);
      const raw = this.load(PDFRef.of(number));
      if (raw instanceof PDFRawStream) {
        this.beforeObjectStream?.(raw);
        const decoded = decodePDFRawStream(raw).decode();
        const first = numberOf(raw.dict.get(PDFName.of("First"))) ?? 0;
        const count = numberOf(raw.dict.get(PDFName.of("N"))) ?? 0;
        const pairs = latin1(decoded, 0, first).trim().split(/\s+/).map(Number);
        for (let k = 0; k < count && 2 * k + 1 < pairs.length; k++) {
          const parser = PDFObjectParser.forBytes(decoded.subarray(first + pairs[2 * k + 1]!), this.context);
          objects.set(pairs[2 * k]!, parser.parseObject());
        }
      }
    }
    return objects.get(wanted);
  }

  /** Every `N G obj` in the file, the last of each number winning (a damaged file's fallback). */
  private scan(): Map<number, number> {
    if (this.scanned) return this.scanned;
    const found = new Map<number, number>();
    for (let p = 0; p < this.bytes.list.length; p++) {
      const view = this.bytes.list[p]!;
      const base = this.bytes.starts[p]!;
      for (let i = view.indexOf(0x6f /* o */); i >= 0; i = view.indexOf(0x6f, i + 1)) {
        if (view[i + 1] !== 0x62 || view[i + 2] !== 0x6a) continue;
        const back = latin1(view, Math.max(0, i - 24), i);
        const m = /(?:^|[\s>])(\d+)\s+(\d+)\s+$/.exec(back);
        if (m) found.set(Number(m[1]), base + i - back.length + m.index + m[0].indexOf(m[1]!));
      }
    }
    this.scanned = found;
    return found;
  }

  private findCatalog(): PDFRef | undefined {
    for (const [n, at] of [...this.scan()].reverse()) {
      if (!/\/Type\s*\/Catalog/.test(this.bytes.text(at, at + 512))) continue;
      return PDFRef.of(n);
    }
    return undefined;
  }
}

const latin1 = (bytes: Uint8Array, from: number, to: number) => {
  let s = "";
  for (let i = Math.max(0, from); i < Math.min(bytes.length, to); i++) s += String.fromCharCode(bytes[i]!);
  return s;
};

const numberOf = (o: PDFObject | undefined): number | null => (o instanceof PDFNumber ? o.asNumber() : null);

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
function serializeUpdate(
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

/** The file as one buffer: for callers that need it whole (small documents, tests). */
export function joinParts(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * SHA-256 (hex) of the concatenation of `parts`, never joined in the Worker (the runtime's
 * DigestStream). Where the runtime has none (Node, for the interop script and the benchmark's
 * tools) it hashes a joined copy.
 */
export async function sha256HexOfParts(parts: Uint8Array[]): Promise<string> {
  const DigestStream = (crypto as unknown as { DigestStream?: new (algorithm: string) => WritableStream<Uint8Array> & { digest: Promise<ArrayBuffer> } }).DigestStream;
  let digest: ArrayBuffer;
  if (DigestStream) {
    const stream = new DigestStream("SHA-256");
    const writer = stream.getWriter();
    for (const part of parts) await writer.write(part);
    await writer.close();
    digest = await stream.digest;
  } else {
    digest = await crypto.subtle.digest("SHA-256", joinParts(parts));
  }
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

type PageCache = { pageMap: Map<PDFPageLeaf, PDFPage>; pageCache: { invalidate(): void }; pageCount?: number };

function pageOf(doc: PDFDocument, leaf: PDFPageLeaf, ref: PDFRef): PDFPage {
  const { pageMap } = doc as unknown as PageCache;
  let page = pageMap.get(leaf);
  if (!page) pageMap.set(leaf, (page = PDFPage.of(leaf, ref, doc)));
  return page;
}

/** The number of pages, from the page tree root's /Count (no page is read). */
export function pageCount(doc: PDFDocument): number {
  const root = doc.catalog.Pages();
  return root instanceof PDFPageTree ? root.Count().asNumber() : doc.getPageCount();
}

/**
 * The page at `index` (0-based) or undefined, reading only the page-tree nodes on its path (in a flat
 * tree, the one leaf): pdf-lib's getPages() reads every page dictionary, which for a long document
 * costs more than the page's own work. Falls back to that walk for a tree it cannot navigate.
 */
export function pageAt(doc: PDFDocument, index: number): PDFPage | undefined {
  const context = doc.context;
  let node: unknown = doc.catalog.Pages();
  let remaining = index;
  for (let depth = 0; depth < 64 && node instanceof PDFPageTree && remaining >= 0; depth++) {
    const kids = node.Kids();
    if (node.Count().asNumber() === kids.size() && remaining < kids.size()) {
      // As many pages as kids: when the kid at the index is a page, it is the one.
      const ref = kids.get(remaining);
      const kid = context.lookup(ref);
      if (kid instanceof PDFPageLeaf && ref instanceof PDFRef) return pageOf(doc, kid, ref);
    }
    let next: PDFPageTree | undefined;
    for (let i = 0; i < kids.size() && !next; i++) {
      const ref = kids.get(i);
      const kid = context.lookup(ref);
      if (kid instanceof PDFPageTree) {
        const count = kid.Count().asNumber();
        if (remaining < count) next = kid;
        else remaining -= count;
      } else if (kid instanceof PDFPageLeaf) {
        if (remaining === 0 && ref instanceof PDFRef) return pageOf(doc, kid, ref);
        remaining -= 1;
      }
    }
    if (!next) break;
    node = next;
  }
  return doc.getPages()[index];
}

/** Appends a page of `size` at the end of the document: a new kid of the page tree's root (no page is read). */
export function appendPage(doc: PDFDocument, size: [number, number]): PDFPage {
  const root = doc.catalog.Pages();
  const rootRef = doc.catalog.get(PDFName.of("Pages"));
  if (!(root instanceof PDFPageTree) || !(rootRef instanceof PDFRef)) return doc.addPage(size);
  const page = PDFPage.create(doc);
  page.setSize(...size);
  root.pushLeafNode(page.ref);
  page.node.setParent(rootRef);
  const cache = doc as unknown as PageCache;
  cache.pageMap.set(page.node, page);
  cache.pageCache.invalidate();
  cache.pageCount = undefined;
  return page;
}

