import { decodePDFRawStream, PDFContext, PDFDict, PDFName, PDFNumber, PDFObjectParser, PDFRawStream, PDFRef, PDFXRefStreamParser, type PDFObject } from "pdf-lib";
import type { Parts } from "./parts";

type Entry = { offset: number } | { stream: number; index: number } | null;
type Trailer = { Root?: PDFObject; Info?: PDFObject; ID?: PDFObject; Encrypt?: PDFObject };

/** Reads cross-reference sections and single objects out of `Parts`, copying no stream's bytes. */
export class ObjectReader {
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

export const numberOf = (o: PDFObject | undefined): number | null => (o instanceof PDFNumber ? o.asNumber() : null);
