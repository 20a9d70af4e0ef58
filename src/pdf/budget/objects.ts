import { Lexer, WHITE, DELIMITER, type PdfValue } from "./lexer";

/**
 * Every indirect object of a file, found by reading its body rather than by trusting its
 * cross-reference data (pdf.js rebuilds a broken table by scanning, and follows an offset anywhere):
 * - a tokenizer pass from the start (comments, strings and dictionaries read as a reader reads them;
 *   stream data skipped to its end: /Length if `endstream` follows it, else the first `endstream`);
 * - then every `obj` keyword anywhere in the bytes, inside other streams' data too, that follows two
 *   integers and was not read by the first pass;
 * - every `trailer` keyword's dictionary, wherever it is.
 * Objects inside object streams are added by the caller once it has decoded them under the budget.
 */
export type StreamObject = {
  key: string;
  dict: Map<string, PdfValue>;
  /** where the data begins: after `stream` and its line end, as pdf-lib and pdf.js take it */
  dataStart: number;
  /** the first `endstream` after the data begins (the file's end if none) */
  endstreamAt: number;
};

export class PdfObjects {
  /** "num gen" -> every definition found, in file order */
  readonly definitions = new Map<string, PdfValue[]>();
  readonly streams: StreamObject[] = [];
  readonly trailers: Map<string, PdfValue>[] = [];

  define(num: number, gen: number, value: PdfValue): void {
    const key = `${num} ${gen}`;
    const list = this.definitions.get(key);
    if (list) list.push(value);
    else this.definitions.set(key, [value]);
  }

  /** Every value a reference may stand for (a value that is no reference stands for itself); [] if none. */
  resolve(value: PdfValue, depth = 0): PdfValue[] {
    if (value.kind !== "ref") return [value];
    if (depth > 8) return [];
    const defs = this.definitions.get(`${value.num} ${value.gen}`) ?? [];
    return defs.flatMap((d) => this.resolve(d, depth + 1));
  }
}

const enc = (s: string) => Uint8Array.from(s, (ch) => ch.charCodeAt(0));
const OBJ = enc("obj");
const ENDSTREAM = enc("endstream");
const TRAILER = enc("trailer");

export function readObjects(bytes: Uint8Array): PdfObjects {
  const objects = new PdfObjects();
  const read = new Set<number>(); // positions of `obj` keywords already read
  tokenizerPass(bytes, objects, read);
  for (let at = indexOf(bytes, OBJ, 0); at >= 0; at = indexOf(bytes, OBJ, at + 1)) {
    if (read.has(at) || !endsToken(bytes, at + 3)) continue;
    const head = objectNumberBefore(bytes, at);
    if (head) readObjectBody(bytes, at + 3, head.num, head.gen, objects);
  }
  for (let at = indexOf(bytes, TRAILER, 0); at >= 0; at = indexOf(bytes, TRAILER, at + 1)) {
    const lexer = new Lexer(bytes, at + TRAILER.length);
    const value = lexer.readValue();
    if (value?.kind === "dict") objects.trailers.push(value.entries);
  }
  return objects;
}

function tokenizerPass(bytes: Uint8Array, objects: PdfObjects, read: Set<number>): void {
  const lexer = new Lexer(bytes);
  // the two tokens before the current one, if numbers: `num gen obj`
  let prev: { value: number; integer: boolean } | null = null;
  let prev2: { value: number; integer: boolean } | null = null;
  for (;;) {
    const t = lexer.next();
    if (t.type === "eof") return;
    if (t.type === "keyword" && t.word === "obj" && prev && prev2 && prev.integer && prev2.integer) {
      read.add(lexer.pos - 3);
      lexer.pos = readObjectBody(bytes, lexer.pos, prev2.value, prev.value, objects);
      prev = prev2 = null;
      continue;
    }
    prev2 = prev;
    prev = t.type === "number" ? t : null;
  }
}

/** Reads the value after `num gen obj` at `from`; a dictionary followed by `stream` is a stream. Returns where reading may go on. */
function readObjectBody(bytes: Uint8Array, from: number, num: number, gen: number, objects: PdfObjects): number {
  const lexer = new Lexer(bytes, from);
  const value = lexer.readValue();
  if (!value) return lexer.pos;
  objects.define(num, gen, value);
  if (value.kind !== "dict") return lexer.pos;
  const afterValue = lexer.pos;
  const t = lexer.next();
  if (t.type !== "keyword" || t.word !== "stream") return afterValue;
  const dataStart = dataStartAfterKeyword(bytes, lexer.pos);
  const endstreamAt = indexOf(bytes, ENDSTREAM, dataStart);
  objects.streams.push({ key: `${num} ${gen}`, dict: value.entries, dataStart, endstreamAt: endstreamAt < 0 ? bytes.length : endstreamAt });
  const length = value.entries.get("Length");
  if (length?.kind === "number" && length.integer && length.value >= 0) {
    const end = dataStart + length.value;
    if (end <= bytes.length && followedByEndstream(bytes, end)) return end;
  }
  return endstreamAt < 0 ? bytes.length : endstreamAt + ENDSTREAM.length;
}

/** After `stream`: spaces and tabs some writers leave, then CR LF, LF or CR. */
export function dataStartAfterKeyword(bytes: Uint8Array, afterKeyword: number): number {
  let d = afterKeyword;
  while (bytes[d] === 0x20 || bytes[d] === 0x09) d++;
  if (bytes[d] === 0x0d) d++;
  if (bytes[d] === 0x0a) d++;
  return d;
}

function followedByEndstream(bytes: Uint8Array, at: number): boolean {
  let i = at;
  while (i < bytes.length && WHITE[bytes[i]!]) i++;
  for (let j = 0; j < ENDSTREAM.length; j++) if (bytes[i + j] !== ENDSTREAM[j]) return false;
  return true;
}

const endsToken = (bytes: Uint8Array, at: number) => at >= bytes.length || WHITE[bytes[at]!] === 1 || DELIMITER[bytes[at]!] === 1;
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;

/** `num gen` just before an `obj` keyword at `at` (whitespace between), or null. */
function objectNumberBefore(bytes: Uint8Array, at: number): { num: number; gen: number } | null {
  let i = at - 1;
  while (i >= 0 && WHITE[bytes[i]!]) i--;
  const genEnd = i + 1;
  while (i >= 0 && isDigit(bytes[i])) i--;
  const genStart = i + 1;
  if (genStart === genEnd || genEnd - genStart > 5) return null;
  if (i < 0 || !WHITE[bytes[i]!]) return null;
  while (i >= 0 && WHITE[bytes[i]!]) i--;
  const numEnd = i + 1;
  while (i >= 0 && isDigit(bytes[i])) i--;
  const numStart = i + 1;
  if (numStart === numEnd || numEnd - numStart > 10) return null;
  if (i >= 0 && !WHITE[bytes[i]!] && !DELIMITER[bytes[i]!]) return null;
  const text = (a: number, b: number) => Number(String.fromCharCode(...bytes.subarray(a, b)));
  return { num: text(numStart, numEnd), gen: text(genStart, genEnd) };
}

/** The objects of a decoded object stream: `N` pairs of object number and offset (from `/First`), then the objects. */
export function readObjectStream(data: Uint8Array, first: number, count: number, objects: PdfObjects): void {
  const lexer = new Lexer(data);
  for (let k = 0; k < count; k++) {
    const num = lexer.next();
    const offset = lexer.next();
    if (num.type !== "number" || offset.type !== "number" || !num.integer || !offset.integer) return;
    if (first + offset.value < 0 || first + offset.value >= data.length) continue;
    const value = new Lexer(data, first + offset.value).readValue();
    if (value) objects.define(num.value, 0, value);
  }
}

export function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  for (let i = haystack.indexOf(first, from); i >= 0 && i <= haystack.length - needle.length; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}
