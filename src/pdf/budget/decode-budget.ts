import { ApiError } from "../../lib/errors";
import { imageOnlyStreamOffsets } from "./image-streams";
import { OverBudget, Sniffer, Tally } from "./layers";
import { RefusedNameScanner, type RefusedName } from "./names";

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

export const decodeBudgetExceeded = (what: string, budget: number) =>
  new ApiError(413, `The PDF decompresses to more than ${budget / MB} MB ${what}; such files are refused`, {
    decoded_limit_bytes: budget,
  });

const REFUSALS: Record<RefusedName, () => ApiError> = {
  lzw: () => new ApiError(422, "PDFs compressed with LZW (LZWDecode) are not accepted: their decompressed size cannot be checked. Save the document again (most tools write Flate) and upload it", { filter: "LZWDecode" }),
  run_length: () => new ApiError(422, "PDFs compressed with RunLengthDecode are not accepted: their decompressed size cannot be checked. Save the document again (most tools write Flate) and upload it", { filter: "RunLengthDecode" }),
  encrypt: () => new ApiError(422, "Encrypted PDFs cannot be used: their compressed content cannot be checked before it is read. Upload the document without a password or permissions restriction"),
};

const enc = (s: string) => Uint8Array.from(s, (ch) => ch.charCodeAt(0));
const STREAM = enc("stream");
const latin1 = new TextDecoder("latin1");

type Counted = { size: number; over: boolean; objects: boolean };

/**
 * Refuses a PDF whose compressed streams inflate past the budgets (413, naming the limit), before any
 * parser sees it, whatever the file says about itself: the scan trusts no dictionary, /Length, filter
 * name or `endstream`. Wherever stream data may begin (after every `stream` keyword, even one inside
 * another stream's data: pdf.js follows cross-reference offsets anywhere, but a stream object always
 * has its keyword; a probe at every line end inflated random image bytes to false refusals), bytes that
 * open with a zlib header, or hexadecimal or ASCII85 text of one, are inflated layer by layer until the
 * deflate data ends by itself, and only counted (see ./layers.ts). Files naming LZW or
 * RunLength compression, whose data has no header to recognise, and encrypted files are refused (422).
 * Only streams proven to be images, through the document's object graph, escape the one-stream and
 * total budgets (./image-streams.ts).
 */
export async function assertWithinDecodeBudget(bytes: Uint8Array): Promise<void> {
  const rawNames = new RefusedNameScanner(new Set(["lzw", "run_length", "encrypt"]), "filter-value");
  rawNames.push(bytes);
  rawNames.finish();
  if (rawNames.found) throw REFUSALS[rawNames.found]();
  // ASCII85 writes four zero bytes as one `z`: uncompressed text of them is a 4:1 bomb of its own.
  let zs = 0;
  for (let i = bytes.indexOf(0x7a); i >= 0; i = bytes.indexOf(0x7a, i + 1)) zs++;
  if (4 * zs > MAX_DECODED_STREAM_BYTES) throw decodeBudgetExceeded("in one stream", MAX_DECODED_STREAM_BYTES);

  const counted = countEveryStream(bytes);
  const judge = (exempt: Set<number>) => {
    let total = 0;
    let objects = 0;
    for (const [at, c] of counted) {
      if (c.objects) objects += c.size;
      if (objects > MAX_DECODED_OBJECT_STREAM_BYTES) throw decodeBudgetExceeded("of object streams", MAX_DECODED_OBJECT_STREAM_BYTES);
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
  for (const [at, c] of counted) if (!exempt.has(at) && c.over) throw decodeBudgetExceeded("in one stream", MAX_DECODED_STREAM_BYTES);
  if (judge(exempt) !== "fine") throw decodeBudgetExceeded("of content", MAX_DECODED_PDF_BYTES);
}

/** Every place stream data may begin, with what it decodes to (capped just past the one-stream budget). */
function countEveryStream(bytes: Uint8Array): Map<number, Counted> {
  const starts = new Map<number, number>(); // offset -> how far text wrappers may be looked for
  for (let at = indexOf(bytes, STREAM, 0); at >= 0; at = indexOf(bytes, STREAM, at + 1)) {
    const after = at + STREAM.length;
    starts.set(after, 64);
    let d = after;
    while (bytes[d] === 0x20 || bytes[d] === 0x09) d++;
    if (bytes[d] === 0x0d) d++;
    if (bytes[d] === 0x0a) d++;
    starts.set(d, Infinity);
  }

  const counted = new Map<number, Counted>();
  let inflated = 0;
  for (const [start, window] of [...starts].sort((a, b) => a[0] - b[0])) {
    if (start >= bytes.length || !mayOpenLayer(bytes, start)) continue;
    const names = new RefusedNameScanner(new Set(["lzw", "run_length"]), "text");
    const tally = new Tally(MAX_DECODED_STREAM_BYTES, names);
    const sniffer = new Sniffer(tally, window);
    let over = false;
    try {
      for (let at = start; at < bytes.length && !sniffer.done; at += 1024) sniffer.push(bytes.subarray(at, at + 1024));
    } catch (err) {
      if (!(err instanceof OverBudget)) throw err;
      over = true;
    }
    names.finish();
    if (names.found) throw REFUSALS[names.found]();
    if (tally.size === 0) continue;
    inflated += tally.size;
    if (inflated > MAX_INFLATED_WHILE_CHECKING) throw decodeBudgetExceeded("in all", MAX_INFLATED_WHILE_CHECKING);
    counted.set(start, { size: tally.size, over, objects: declaresObjectStream(bytes, start) });
  }
  return counted;
}

/** A cheap first look: a zlib header, or a character that could begin hexadecimal or ASCII85 text. */
function mayOpenLayer(bytes: Uint8Array, at: number): boolean {
  const c = bytes[at]!;
  if ((c & 0x0f) === 8 && at + 1 < bytes.length) return true;
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || (c >= 0x21 && c <= 0x75);
}

/**
 * Whether the dictionary just before the data calls it an object or cross-reference stream. Only ever
 * adds the object-stream budget to a stream already counted in full, so a misleading dictionary gains
 * nothing; pdf-lib's and our reader's object streams are also held to it as they are read.
 */
function declaresObjectStream(bytes: Uint8Array, dataAt: number): boolean {
  const from = Math.max(0, dataAt - 4096);
  const text = latin1.decode(bytes.subarray(from, dataAt));
  const keyword = text.lastIndexOf("stream");
  if (keyword < 0) return false;
  const dictEnd = text.lastIndexOf(">>", keyword);
  const dictStart = text.lastIndexOf("obj", dictEnd);
  if (dictEnd < 0 || dictStart < 0) return false;
  return /\/Type\s*\/(ObjStm|XRef)\b/.test(text.slice(dictStart, dictEnd));
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
