import { ApiError } from "../../lib/errors";
import { apiIssue } from "../../lib/validation";
import { imageOnlyStreamOffsets } from "./image-streams";
import { decodeChain, filterChains, selfEnding, UndecidableFilter, type Filter } from "./filters";
import { isZlibHeader, OverBudget, Sniffer, Tally } from "./layers";
import type { PdfValue } from "./lexer";
import { dataStartAfterKeyword, indexOf, readObjects, readObjectStream, type PdfObjects, type StreamObject } from "./objects";

/**
 * Budgets for what an uploaded PDF's compressed streams may inflate to. pdf.js (text layer, tags,
 * anchors) and pdf-lib (object streams, fonts) inflate a stream in full and hold it about twice over:
 * one 100 MB content stream from a 100 KB upload took the 128 MB isolate down for every tenant in it.
 * - one stream: 16 MiB (a page's content or a font is a few hundred KB; pdf.js holds one page at a time);
 * - object and cross-reference streams together: 16 MiB (pdf-lib parses them all and keeps the objects);
 * - everything together: 256 MiB (a bound on the CPU spent inflating; a 9,000-page text-dense PDF
 *   decodes to a few tens of MB).
 * Streams that are only ever images are not counted: neither library decodes them here, so a scanned
 * document of any size passes. See docs/decisions/pdf-decode-budget.md.
 */
export const MAX_DECODED_STREAM_BYTES = 16 * 1024 * 1024;
export const MAX_DECODED_OBJECT_STREAM_BYTES = 16 * 1024 * 1024;
export const MAX_DECODED_PDF_BYTES = 256 * 1024 * 1024;
/** Inflating costs CPU even for images: past this much in all, the file is refused as too costly. */
const MAX_INFLATED_WHILE_CHECKING = 1024 * 1024 * 1024;

const MB = 1024 * 1024;
const STREAM = Uint8Array.from("stream", (ch) => ch.charCodeAt(0));

export const decodeBudgetExceeded = (what: string, budget: number) =>
  new ApiError(413, `The PDF decompresses to more than ${budget / MB} MB ${what}; such files are refused`, {
    decoded_limit_bytes: budget,
  });

const ENCRYPTED = "Encrypted PDFs cannot be used: their compressed content cannot be checked before it is read. Upload the document without a password or permissions restriction";
const encrypted = () => new ApiError(422, ENCRYPTED, [apiIssue(["file"], "a PDF without encryption", "an encrypted PDF", ENCRYPTED, "encrypted_pdf")]);
const undecidable = (filter: string) => {
  const message = `The PDF compresses a stream with a filter whose decompressed size cannot be checked (${filter}). Save the document again (most tools write Flate) and upload it`;
  return new ApiError(422, message, [apiIssue(["file"], "streams whose decompressed size can be checked (FlateDecode and the other standard filters)", filter, message, "undecidable_filter")]);
};

type Counted = { size: number; over: boolean; objects: boolean };

/**
 * Refuses a PDF whose streams decode past the budgets (413, naming the limit), before any parser sees
 * it. The file is read by our own tokenizer (./lexer.ts, ./objects.ts): every indirect object in the
 * body, inside object streams too, and every trailer. Each stream's filter chain comes from its parsed
 * dictionary (references resolved, `#` escapes undone, comments skipped) and is decoded by counting
 * decoders (Flate, ASCIIHex, ASCII85, LZW, RunLength) under one tally, output dropped; object streams
 * are decoded first, held to their own budget, and their objects parsed, since they may define other
 * streams' filters. A filter that cannot be decided (an unknown name, a reference to nothing) and an
 * encrypted file are refused (422). As a second line, the content sniffing of the earlier scan still
 * runs after every `stream` keyword, whatever the dictionaries say (./layers.ts), and a place counts
 * with the larger of the two figures. Only streams proven to be images, through the document's object
 * graph, escape the one-stream and total budgets (./image-streams.ts).
 */
export async function assertWithinDecodeBudget(bytes: Uint8Array): Promise<void> {
  const objects = readObjects(bytes);
  for (const trailer of objects.trailers) if (isEncryptKey(trailer)) throw encrypted();
  for (const s of objects.streams) if (typeOf(s, objects).has("XRef") && isEncryptKey(s.dict)) throw encrypted();
  // ASCII85 writes four zero bytes as one `z`: uncompressed text of them is a 4:1 bomb of its own.
  let zs = 0;
  for (let i = bytes.indexOf(0x7a); i >= 0; i = bytes.indexOf(0x7a, i + 1)) zs++;
  if (4 * zs > MAX_DECODED_STREAM_BYTES) throw decodeBudgetExceeded("in one stream", MAX_DECODED_STREAM_BYTES);

  const parsed = countParsedStreams(bytes, objects);
  const counted = countEveryStream(bytes, parsed);
  const judge = (exempt: Set<number>) => {
    let total = 0;
    let objectStreams = 0;
    for (const [at, c] of counted) {
      if (c.objects) objectStreams += c.size;
      if (objectStreams > MAX_DECODED_OBJECT_STREAM_BYTES) throw decodeBudgetExceeded("of object streams", MAX_DECODED_OBJECT_STREAM_BYTES);
      if (exempt.has(at)) continue;
      if (c.over) return "over";
      total += c.size;
    }
    return total > MAX_DECODED_PDF_BYTES ? "over" : "fine";
  };
  if (judge(new Set()) === "fine") return;

  let objectStreams = 0;
  const images = await imageOnlyStreamOffsets(bytes, (offset) => {
    const c = counted.get(offset);
    if (!c) return;
    objectStreams += c.size;
    if (c.over || objectStreams > MAX_DECODED_OBJECT_STREAM_BYTES) throw decodeBudgetExceeded("of object streams", MAX_DECODED_OBJECT_STREAM_BYTES);
  });
  const exempt = images ?? new Set<number>();
  for (const [at, c] of counted) if (c.objects) exempt.delete(at);
  for (const [at, c] of counted) if (!exempt.has(at) && c.over) throw decodeBudgetExceeded("in one stream", MAX_DECODED_STREAM_BYTES);
  if (judge(exempt) !== "fine") throw decodeBudgetExceeded("of content", MAX_DECODED_PDF_BYTES);
}

const isEncryptKey = (dict: Map<string, PdfValue>) => {
  const v = dict.get("Encrypt");
  return v !== undefined && v.kind !== "null";
};

/** Every name the stream's `/Type` may resolve to. */
function typeOf(s: StreamObject, objects: PdfObjects): Set<string> {
  const t = s.dict.get("Type");
  const names = new Set<string>();
  if (t) for (const v of objects.resolve(t)) if (v.kind === "name") names.add(v.name);
  return names;
}

/** The largest integer a value may resolve to, or null. */
function integerOf(value: PdfValue | undefined, objects: PdfObjects): number | null {
  if (!value) return null;
  let best: number | null = null;
  for (const v of objects.resolve(value)) if (v.kind === "number" && v.integer && v.value >= 0) best = Math.max(best ?? 0, v.value);
  return best;
}

/**
 * Decodes every parsed stream by its own filters, object streams first (in rounds: one object stream
 * may hold the filter of another); the objects they hold join the parse. Returns data offset -> count,
 * and which offsets a parsed stream already decoded as Flate (the sniffer need not inflate them again).
 */
function countParsedStreams(bytes: Uint8Array, objects: PdfObjects): { counted: Map<number, Counted & { flate: boolean }> } {
  const counted = new Map<number, Counted & { flate: boolean }>();
  let objectStreamBytes = 0;
  let inflated = 0;
  const isObjects = (s: StreamObject) => {
    const t = typeOf(s, objects);
    return t.has("ObjStm") || t.has("XRef");
  };

  const decode = (s: StreamObject, chains: Filter[][]) => {
    const objectStream = isObjects(s);
    const keep: Uint8Array[] = [];
    let kept = 0;
    let size = 0;
    let over = false;
    for (const chain of chains) {
      const tally = new Tally(MAX_DECODED_STREAM_BYTES);
      const lengthEnd = s.dataStart + (integerOf(s.dict.get("Length"), objects) ?? 0);
      const end = selfEnding(chain[0]) ? bytes.length : Math.min(bytes.length, Math.max(s.endstreamAt, lengthEnd));
      const collect = objectStream && chains.length === 1 ? (chunk: Uint8Array) => {
        kept += chunk.byteLength;
        if (kept <= MAX_DECODED_OBJECT_STREAM_BYTES) keep.push(chunk.slice());
      } : undefined;
      try {
        if (chain.length === 0 && collect) {
          // an uncompressed object stream: its bytes as they are, up to where its data ends
          const raw = bytes.subarray(s.dataStart, Math.min(bytes.length, Math.max(s.endstreamAt, lengthEnd)));
          tally.add(raw);
          collect(raw);
        }
        decodeChain(bytes.subarray(s.dataStart, end), chain, tally, collect);
      } catch (err) {
        if (!(err instanceof OverBudget)) throw err;
        over = true;
      }
      size = Math.max(size, tally.size);
      if (over) break; // one reading over the budget decides it
    }
    inflated += size;
    if (inflated > MAX_INFLATED_WHILE_CHECKING) throw decodeBudgetExceeded("in all", MAX_INFLATED_WHILE_CHECKING);
    if (objectStream) {
      objectStreamBytes += size;
      if (over || objectStreamBytes > MAX_DECODED_OBJECT_STREAM_BYTES) throw decodeBudgetExceeded("of object streams", MAX_DECODED_OBJECT_STREAM_BYTES);
      if (typeOf(s, objects).has("ObjStm") && keep.length) {
        readObjectStream(join(keep), integerOf(s.dict.get("First"), objects) ?? 0, integerOf(s.dict.get("N"), objects) ?? 0, objects);
      }
    }
    const flate = chains.every((c) => c[0] === "flate");
    const prior = counted.get(s.dataStart);
    counted.set(s.dataStart, {
      size: Math.max(size, prior?.size ?? 0),
      over: over || Boolean(prior?.over),
      objects: objectStream || Boolean(prior?.objects),
      flate: flate && (prior?.flate ?? true),
    });
  };

  const chainsOrRefuse = (s: StreamObject) => {
    try {
      return filterChains(s, objects);
    } catch (err) {
      if (err instanceof UndecidableFilter) throw undecidable(err.filter);
      throw err;
    }
  };

  // Object streams first: each round decodes those whose filters can be decided with what is known.
  let pending = objects.streams.filter(isObjects);
  while (pending.length) {
    const waiting: StreamObject[] = [];
    for (const s of pending) {
      let chains: Filter[][];
      try {
        chains = filterChains(s, objects);
      } catch (err) {
        if (!(err instanceof UndecidableFilter)) throw err;
        waiting.push(s);
        continue;
      }
      decode(s, chains);
    }
    if (waiting.length === pending.length) for (const s of waiting) chainsOrRefuse(s);
    pending = waiting;
  }
  // Object streams can make more streams object streams (a /Type by reference): those are counted as such below.
  for (const s of objects.streams) if (!counted.has(s.dataStart)) decode(s, chainsOrRefuse(s));
  return { counted };
}

function join(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) (out.set(c, at), (at += c.byteLength));
  return out;
}

/**
 * The second line: every place stream data may begin (after every `stream` keyword, even one inside
 * another stream's data), sniffed for Flate or a text wrapper around it whatever any dictionary says,
 * merged with the parsed counts (the larger figure wins; a place no parsed object claims counts as an
 * object stream too, since nothing says what reads it). Places a parsed stream already inflated from
 * the same zlib header are not inflated twice.
 */
function countEveryStream(bytes: Uint8Array, parsed: { counted: Map<number, Counted & { flate: boolean }> }): Map<number, Counted> {
  const starts = new Map<number, { window: number; data: number }>(); // offset -> how far text wrappers may be looked for, and the data start it belongs to
  for (let at = indexOf(bytes, STREAM, 0); at >= 0; at = indexOf(bytes, STREAM, at + 1)) {
    const after = at + STREAM.length;
    const d = dataStartAfterKeyword(bytes, after);
    const known = parsed.counted.get(d);
    // already over the one-stream budget by its own filters, or inflated from this very zlib header: nothing to add
    if (known?.over || (known?.flate && isZlibHeader(bytes[d] ?? 0, bytes[d + 1] ?? 0))) continue;
    starts.set(after, { window: 64, data: d });
    starts.set(d, { window: Infinity, data: d });
  }

  const counted = new Map<number, Counted>();
  for (const [at, c] of parsed.counted) counted.set(at, { size: c.size, over: c.over, objects: c.objects });
  let inflated = 0;
  for (const [start, { window, data }] of [...starts].sort((a, b) => a[0] - b[0])) {
    if (start >= bytes.length || !mayOpenLayer(bytes, start)) continue;
    const tally = new Tally(MAX_DECODED_STREAM_BYTES);
    const sniffer = new Sniffer(tally, window);
    let over = false;
    try {
      for (let at = start; at < bytes.length && !sniffer.done; at += 1024) sniffer.push(bytes.subarray(at, at + 1024));
    } catch (err) {
      if (!(err instanceof OverBudget)) throw err;
      over = true;
    }
    if (tally.size === 0) continue;
    inflated += tally.size;
    if (inflated > MAX_INFLATED_WHILE_CHECKING) throw decodeBudgetExceeded("in all", MAX_INFLATED_WHILE_CHECKING);
    const prior = counted.get(data);
    counted.set(data, {
      size: Math.max(tally.size, prior?.size ?? 0),
      over: over || Boolean(prior?.over),
      objects: prior ? prior.objects : true,
    });
  }
  return counted;
}

/** A cheap first look: a zlib header, or a character that could begin hexadecimal or ASCII85 text. */
function mayOpenLayer(bytes: Uint8Array, at: number): boolean {
  const c = bytes[at]!;
  if ((c & 0x0f) === 8 && at + 1 < bytes.length) return true;
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || (c >= 0x21 && c <= 0x75);
}

