import { Unzlib } from "fflate";
import { ApiError } from "./errors";

/**
 * Budgets for what an uploaded PDF's compressed streams may inflate to. pdf.js (text layer, tags,
 * anchors) and pdf-lib (object streams, fonts) inflate a stream in full and hold it about twice over:
 * one 100 MB content stream from a 100 KB upload took the 128 MB isolate down for every tenant in it.
 * - one stream: 16 MiB (a page's content or a font is a few hundred KB; pdf.js holds one page at a time);
 * - object and cross-reference streams together: 16 MiB (pdf-lib parses them all and keeps the objects);
 * - everything together: 256 MiB (a bound on the CPU spent inflating; a 9,000-page text-dense PDF
 *   decodes to a few tens of MB).
 * Images are not counted: neither library decodes them here, so a scanned document of any size passes.
 */
export const MAX_DECODED_STREAM_BYTES = 16 * 1024 * 1024;
export const MAX_DECODED_OBJECT_STREAM_BYTES = 16 * 1024 * 1024;
export const MAX_DECODED_PDF_BYTES = 256 * 1024 * 1024;

const MB = 1024 * 1024;

export const decodeBudgetExceeded = (what: string, budget: number) =>
  new ApiError(413, `The PDF decompresses to more than ${budget / MB} MB ${what}; such files are refused`, {
    decoded_limit_bytes: budget,
  });

const enc = (s: string) => Uint8Array.from(s, (ch) => ch.charCodeAt(0));
const STREAM = enc("stream");
const ENDSTREAM = enc("endstream");
const latin1 = new TextDecoder("latin1");

/**
 * Refuses (413, naming the limit) a PDF whose Flate-compressed, non-image streams inflate past the
 * budget, before any parser sees it. The bytes are read as they are, without a parser: every
 * `stream … endstream` with its dictionary; each is inflated piece by piece (fflate) and only counted,
 * so this check holds at most about a megabyte of output at a time. Chained filters
 * (`[/FlateDecode /FlateDecode]`) are inflated layer by layer. A stream that does not inflate cleanly
 * counts what it produced before failing.
 */
export async function assertWithinDecodeBudget(bytes: Uint8Array): Promise<void> {
  let total = 0;
  let objects = 0;
  for (const stream of flateStreams(bytes)) {
    const cap = Math.min(MAX_DECODED_STREAM_BYTES, MAX_DECODED_PDF_BYTES - total, stream.objects ? MAX_DECODED_OBJECT_STREAM_BYTES - objects : Infinity);
    const size = inflatedSize(stream.data, stream.layers, cap);
    if (size > MAX_DECODED_STREAM_BYTES) throw decodeBudgetExceeded("in one stream", MAX_DECODED_STREAM_BYTES);
    total += size;
    if (stream.objects) objects += size;
    if (objects > MAX_DECODED_OBJECT_STREAM_BYTES) throw decodeBudgetExceeded("of object streams", MAX_DECODED_OBJECT_STREAM_BYTES);
    if (total > MAX_DECODED_PDF_BYTES) throw decodeBudgetExceeded("of content", MAX_DECODED_PDF_BYTES);
  }
}

type FlateStream = { data: Uint8Array; layers: number; objects: boolean };

function* flateStreams(bytes: Uint8Array): Generator<FlateStream> {
  let at = 0;
  for (;;) {
    const found = indexOf(bytes, STREAM, at);
    if (found < 0) return;
    at = found + STREAM.length;
    if (found >= 3 && bytes[found - 3] === 0x65 && bytes[found - 2] === 0x6e && bytes[found - 1] === 0x64) continue; // "endstream"
    let start = at;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] !== 0x0a && bytes[start - 1] !== 0x0d) continue; // the keyword must end its line
    if (bytes[start] === 0x0a) start++;
    const dict = dictionaryBefore(bytes, found);
    if (dict === null) continue;
    const layers = flateLayers(dict);
    const end = indexOf(bytes, ENDSTREAM, start);
    const stop = end < 0 ? bytes.length : end;
    at = stop;
    if (layers === 0 || /\/Subtype\s*\/Image\b/.test(dict)) continue;
    yield { data: bytes.subarray(start, stop), layers, objects: /\/Type\s*\/(ObjStm|XRef)\b/.test(dict) };
  }
}

/** The dictionary (`<< … >>`) just before a `stream` keyword, as text; nested dictionaries included. */
function dictionaryBefore(bytes: Uint8Array, streamAt: number): string | null {
  let i = streamAt - 1;
  while (i > 0 && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i--;
  if (i < 1 || bytes[i] !== 0x3e || bytes[i - 1] !== 0x3e) return null;
  const end = i + 1;
  let depth = 0;
  const floor = Math.max(0, streamAt - 65536);
  for (; i > floor; i--) {
    if (bytes[i] === 0x3e && bytes[i - 1] === 0x3e) {
      depth++;
      i--;
    } else if (bytes[i] === 0x3c && bytes[i - 1] === 0x3c) {
      depth--;
      i--;
      if (depth === 0) return latin1.decode(bytes.subarray(i, end));
    }
  }
  return null;
}

/** How many Flate filters open the stream's filter chain (`/Fl` is the inline abbreviation). */
function flateLayers(dict: string): number {
  const filter = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(dict)?.[1];
  if (!filter) return 0;
  let layers = 0;
  for (const name of filter.match(/\/[A-Za-z0-9]+/g) ?? []) {
    if (name !== "/FlateDecode" && name !== "/Fl") break;
    layers++;
  }
  return layers;
}

/**
 * Counts what the data inflates to, in 1 KB pieces of input (one piece inflates to at most about 1 MB),
 * stopping as soon as the count passes `remaining`. fflate's streaming inflater hands each piece's output
 * over as it is produced and is dropped at once; trailing bytes after the compressed data (the line end
 * before `endstream`) are ignored as readers ignore them.
 */
function inflatedSize(data: Uint8Array, layers: number, remaining: number): number {
  const PIECE = 1024;
  let produced = 0;
  const over = new Error("over budget");
  let sink: (chunk: Uint8Array, final: boolean) => void = (chunk) => {
    produced += chunk.byteLength;
    if (produced > remaining) throw over;
  };
  // Chained filters: each layer's output is the next layer's input.
  for (let i = 1; i < layers; i++) {
    const next = sink;
    const layer = new Unzlib((chunk, final) => {
      for (let o = 0; o < chunk.length; o += PIECE) next(chunk.subarray(o, o + PIECE), final && o + PIECE >= chunk.length);
    });
    sink = (chunk, final) => layer.push(chunk, final);
  }
  const first = sink;
  const outer = new Unzlib((chunk, final) => first(chunk, final));
  try {
    for (let o = 0; o < data.length; o += PIECE) outer.push(data.subarray(o, o + PIECE), o + PIECE >= data.length);
  } catch (err) {
    if (err === over) return produced;
    /* corrupt or truncated data: what it produced counts */
  }
  return produced;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  for (let i = haystack.indexOf(first, from); i >= 0 && i <= haystack.length - needle.length; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}
