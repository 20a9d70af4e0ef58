/**
 * A minimal PDF content-stream tokenizer (ISO 32000-1 §7.2, §7.8.2). It only has to find the
 * text-showing operators and their string operands with exact byte spans, so a rewrite can replace
 * those spans and leave every other byte of the stream untouched.
 */

export type Token =
  | { t: "num"; v: number; s: number; e: number }
  | { t: "str"; bytes: Uint8Array; s: number; e: number }
  | { t: "name"; v: string; s: number; e: number }
  | { t: "["; s: number; e: number }
  | { t: "]"; s: number; e: number }
  | { t: "dict"; s: number; e: number }
  | { t: "op"; v: string; s: number; e: number };

const WS = new Set([0, 9, 10, 12, 13, 32]);
const DELIM = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
const isRegular = (b: number | undefined) => b !== undefined && !WS.has(b) && !DELIM.has(b);

export function* tokenize(buf: Uint8Array): Generator<Token> {
  let i = 0;
  const n = buf.length;
  while (i < n) {
    const b = buf[i]!;
    if (WS.has(b)) {
      i++;
    } else if (b === 0x25) {
      while (i < n && buf[i] !== 10 && buf[i] !== 13) i++; // comment
    } else if (b === 0x28) {
      const [bytes, end] = literalString(buf, i);
      yield { t: "str", bytes, s: i, e: end };
      i = end;
    } else if (b === 0x3c && buf[i + 1] === 0x3c) {
      const end = skipDict(buf, i);
      yield { t: "dict", s: i, e: end };
      i = end;
    } else if (b === 0x3c) {
      const [bytes, end] = hexString(buf, i);
      yield { t: "str", bytes, s: i, e: end };
      i = end;
    } else if (b === 0x5b || b === 0x5d) {
      yield { t: b === 0x5b ? "[" : "]", s: i, e: i + 1 };
      i++;
    } else if (b === 0x2f) {
      let j = i + 1;
      while (isRegular(buf[j])) j++;
      yield { t: "name", v: latin1(buf.subarray(i + 1, j)), s: i, e: j };
      i = j;
    } else if (!isRegular(b)) {
      i++; // stray delimiter such as "}" or ">": skip it
    } else {
      let j = i;
      while (isRegular(buf[j])) j++;
      const word = latin1(buf.subarray(i, j));
      if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) {
        yield { t: "num", v: Number(word), s: i, e: j };
      } else {
        yield { t: "op", v: word, s: i, e: j };
        if (word === "ID") j = skipInlineImage(buf, j);
      }
      i = j;
    }
  }
}

function latin1(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}

function literalString(buf: Uint8Array, start: number): [Uint8Array, number] {
  const out: number[] = [];
  let depth = 0;
  let i = start + 1;
  for (; i < buf.length; i++) {
    const b = buf[i]!;
    if (b === 0x5c) {
      const next = buf[++i];
      if (next === undefined) break;
      const simple: Record<number, number> = { 0x6e: 10, 0x72: 13, 0x74: 9, 0x62: 8, 0x66: 12, 0x28: 0x28, 0x29: 0x29, 0x5c: 0x5c };
      if (next in simple) out.push(simple[next]!);
      else if (next >= 0x30 && next <= 0x37) {
        let v = next - 0x30;
        for (let k = 0; k < 2 && buf[i + 1]! >= 0x30 && buf[i + 1]! <= 0x37; k++) v = v * 8 + (buf[++i]! - 0x30);
        out.push(v & 0xff);
      } else if (next === 13) {
        if (buf[i + 1] === 10) i++; // line continuation
      } else if (next !== 10) out.push(next);
    } else if (b === 0x28) {
      depth++;
      out.push(b);
    } else if (b === 0x29) {
      if (depth === 0) return [Uint8Array.from(out), i + 1];
      depth--;
      out.push(b);
    } else out.push(b);
  }
  return [Uint8Array.from(out), i];
}

function hexString(buf: Uint8Array, start: number): [Uint8Array, number] {
  let digits = "";
  let i = start + 1;
  for (; i < buf.length && buf[i] !== 0x3e; i++) {
    const c = String.fromCharCode(buf[i]!);
    if (/[0-9a-fA-F]/.test(c)) digits += c;
  }
  if (digits.length % 2) digits += "0";
  const out = new Uint8Array(digits.length / 2);
  for (let k = 0; k < out.length; k++) out[k] = parseInt(digits.slice(2 * k, 2 * k + 2), 16);
  return [out, i + 1];
}

function skipDict(buf: Uint8Array, start: number): number {
  let depth = 0;
  for (let i = start; i < buf.length; i++) {
    if (buf[i] === 0x3c && buf[i + 1] === 0x3c) {
      depth++;
      i++;
    } else if (buf[i] === 0x3e && buf[i + 1] === 0x3e) {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    } else if (buf[i] === 0x28) {
      i = literalString(buf, i)[1] - 1;
    }
  }
  return buf.length;
}

/** Inline image data runs from one whitespace after ID to an EI surrounded by whitespace. */
function skipInlineImage(buf: Uint8Array, afterId: number): number {
  for (let i = afterId + 1; i < buf.length - 1; i++) {
    if (buf[i] === 0x45 && buf[i + 1] === 0x49 && WS.has(buf[i - 1]!) && (i + 2 >= buf.length || WS.has(buf[i + 2]!))) return i + 2;
  }
  return buf.length;
}

/** A PDF string operand written as hex, which needs no escaping. */
export function hexOperand(bytes: Uint8Array): string {
  let s = "<";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return `${s}>`;
}

export const numberOperand = (n: number) => String(Math.round(n * 1000) / 1000);
