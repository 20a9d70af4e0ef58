/**
 * A PDF tokenizer and object parser of our own, for the decode budget: it reads an uploaded file's
 * objects the way pdf.js and pdf-lib read them (comments anywhere between tokens, `#xx` escapes in
 * names, nested literal strings, hexadecimal strings, arrays, dictionaries, indirect references), so
 * that a stream's filters and type come from parsing, never from a pattern over the bytes. It only ever
 * reads: values are small plain objects, strings are skipped rather than decoded, and it is lenient
 * (an unexpected token ends the value it is in) because readers recover from broken files too.
 */

export type PdfValue =
  | { kind: "name"; name: string }
  | { kind: "number"; value: number; integer: boolean }
  | { kind: "ref"; num: number; gen: number }
  | { kind: "array"; items: PdfValue[] }
  | { kind: "dict"; entries: Map<string, PdfValue> }
  | { kind: "string" }
  | { kind: "bool"; value: boolean }
  | { kind: "null" };

export type Token =
  | { type: "name"; name: string }
  | { type: "number"; value: number; integer: boolean }
  | { type: "string" }
  | { type: "open-array" | "close-array" | "open-dict" | "close-dict" }
  | { type: "keyword"; word: string }
  | { type: "eof" };

/** PDF whitespace: NUL, tab, line feed, form feed, carriage return, space. */
export const WHITE = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WHITE[c] = 1;
/** Delimiters: ( ) < > [ ] { } / % */
export const DELIMITER = new Uint8Array(256);
for (const c of [0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) DELIMITER[c] = 1;
const REGULAR = (c: number) => !WHITE[c] && !DELIMITER[c];
const hexValue = (c: number) => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 55 : c >= 0x61 && c <= 0x66 ? c - 87 : -1);

/** Dictionaries and arrays nested deeper than this are not read further (no reader needs more). */
const MAX_DEPTH = 64;

export class Lexer {
  pos: number;
  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly end = bytes.length,
  ) {
    this.pos = start;
  }

  /** Skips whitespace and comments (a comment runs to the end of its line). */
  skipSpace(): void {
    const b = this.bytes;
    while (this.pos < this.end) {
      const c = b[this.pos]!;
      if (WHITE[c]) this.pos++;
      else if (c === 0x25) {
        while (this.pos < this.end && b[this.pos] !== 0x0a && b[this.pos] !== 0x0d) this.pos++;
      } else return;
    }
  }

  next(): Token {
    this.skipSpace();
    const b = this.bytes;
    if (this.pos >= this.end) return { type: "eof" };
    const c = b[this.pos]!;
    switch (c) {
      case 0x2f:
        return { type: "name", name: this.readName() };
      case 0x28:
        this.skipLiteralString();
        return { type: "string" };
      case 0x3c:
        if (b[this.pos + 1] === 0x3c) {
          this.pos += 2;
          return { type: "open-dict" };
        }
        this.skipHexString();
        return { type: "string" };
      case 0x3e:
        this.pos += b[this.pos + 1] === 0x3e ? 2 : 1;
        return { type: "close-dict" };
      case 0x5b:
        this.pos++;
        return { type: "open-array" };
      case 0x5d:
        this.pos++;
        return { type: "close-array" };
      case 0x7b:
      case 0x7d:
      case 0x29:
        this.pos++;
        return { type: "keyword", word: String.fromCharCode(c) };
    }
    const start = this.pos;
    while (this.pos < this.end && REGULAR(b[this.pos]!)) this.pos++;
    const word = latin1(b, start, this.pos);
    const number = parseNumber(word);
    if (number) return { type: "number", ...number };
    return { type: "keyword", word };
  }

  /** After `/`: the name with `#xx` escapes undone, as every reader undoes them. */
  private readName(): string {
    const b = this.bytes;
    this.pos++;
    let name = "";
    while (this.pos < this.end && REGULAR(b[this.pos]!)) {
      const c = b[this.pos]!;
      if (c === 0x23) {
        const hi = hexValue(b[this.pos + 1] ?? -1);
        const lo = hexValue(b[this.pos + 2] ?? -1);
        if (hi >= 0 && lo >= 0 && this.pos + 2 < this.end) {
          name += String.fromCharCode((hi << 4) | lo);
          this.pos += 3;
          continue;
        }
      }
      name += String.fromCharCode(c);
      this.pos++;
      if (name.length > 1024) break; // no real name is this long; the rest is read as another token
    }
    return name;
  }

  /** `( … )` with nested balanced parentheses and backslash escapes. */
  private skipLiteralString(): void {
    const b = this.bytes;
    let depth = 0;
    while (this.pos < this.end) {
      const c = b[this.pos++]!;
      if (c === 0x5c) this.pos++;
      else if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) return;
    }
  }

  private skipHexString(): void {
    const gt = this.bytes.indexOf(0x3e, this.pos + 1);
    this.pos = gt < 0 || gt >= this.end ? this.end : gt + 1;
  }

  /** Reads one value; null at the end or at a token that cannot start one (which is consumed). */
  readValue(depth = 0): PdfValue | null {
    const t = this.next();
    return this.valueFrom(t, depth);
  }

  valueFrom(t: Token, depth: number): PdfValue | null {
    switch (t.type) {
      case "name":
        return { kind: "name", name: t.name };
      case "string":
        return { kind: "string" };
      case "number": {
        if (!t.integer || t.value < 0) return { kind: "number", value: t.value, integer: t.integer };
        // `n g R` is a reference: look ahead, and step back if it is not one
        const save = this.pos;
        const gen = this.next();
        if (gen.type === "number" && gen.integer && gen.value >= 0) {
          const r = this.next();
          if (r.type === "keyword" && r.word === "R") return { kind: "ref", num: t.value, gen: gen.value };
        }
        this.pos = save;
        return { kind: "number", value: t.value, integer: true };
      }
      case "open-array": {
        const items: PdfValue[] = [];
        for (;;) {
          const n = this.next();
          if (n.type === "close-array" || n.type === "eof") break;
          if (n.type === "close-dict" || (n.type === "keyword" && isObjectEnd(n.word))) {
            this.stepBack(n);
            break;
          }
          if (depth >= MAX_DEPTH) continue;
          const v = this.valueFrom(n, depth + 1);
          if (v) items.push(v);
        }
        return { kind: "array", items };
      }
      case "open-dict": {
        const entries = new Map<string, PdfValue>();
        for (;;) {
          const k = this.next();
          if (k.type === "close-dict" || k.type === "eof") break;
          if (k.type === "keyword" && isObjectEnd(k.word)) {
            this.stepBack(k);
            break;
          }
          if (k.type !== "name") continue; // readers skip what cannot be a key
          const v = this.next();
          if (v.type === "close-dict") {
            entries.set(k.name, { kind: "null" });
            break;
          }
          if (v.type === "eof") break;
          if (v.type === "keyword" && isObjectEnd(v.word)) {
            this.stepBack(v);
            break;
          }
          const value = depth >= MAX_DEPTH ? null : this.valueFrom(v, depth + 1);
          if (value) entries.set(k.name, value);
        }
        return { kind: "dict", entries };
      }
      case "keyword":
        if (t.word === "true" || t.word === "false") return { kind: "bool", value: t.word === "true" };
        if (t.word === "null") return { kind: "null" };
        return null;
      default:
        return null;
    }
  }

  /** Puts a keyword that ends an object back, so the caller sees `stream` / `endobj`. */
  private stepBack(t: Token): void {
    if (t.type === "keyword") this.pos -= t.word.length;
    else if (t.type === "close-dict") this.pos -= this.bytes[this.pos - 2] === 0x3e ? 2 : 1;
  }
}

const isObjectEnd = (word: string) => word === "stream" || word === "endobj" || word === "obj" || word === "endstream";

function parseNumber(word: string): { value: number; integer: boolean } | null {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) return null;
  const value = Number(word);
  return Number.isFinite(value) ? { value, integer: !word.includes(".") } : null;
}

export function latin1(b: Uint8Array, from: number, to: number): string {
  let s = "";
  for (let i = from; i < to; i++) s += String.fromCharCode(b[i]!);
  return s;
}
