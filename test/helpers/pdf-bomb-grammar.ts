import fc from "fast-check";
import { zlibSync } from "fflate";

/**
 * A grammar of PDF decompression bombs and their obfuscations, for fast-check: every way a round of the
 * decode budget was bypassed, combined freely. A case is one small file (a few KB to ~300 KB) whose
 * bomb stream decodes to ~20 MiB (over the 16 MiB one-stream budget), or whose object streams decode to
 * 2 x 10 MiB (over the 16 MiB object-stream budget). With `benign`, the same obfuscations wrap a
 * stream that decodes to 64 KiB: such a file must pass. Runs in workerd (tests) and in Node
 * (scripts/fuzz-pdf-bombs.ts). Decoded data is zero bytes: whitespace to a content-stream parser, so
 * benign files stay valid pages.
 */

export type Codec = "flate" | "lzw" | "flate-over-run-length" | "hex-over-flate" | "a85-over-flate" | "flate-hiding-endstream";
export type Spelling = "plain" | "escaped" | "abbreviated";
export type FilterPlace = "direct" | "array" | "indirect-name" | "indirect-array" | "array-of-refs" | "in-object-stream";
export type LengthForm = "direct" | "indirect" | "short" | "long" | "missing";
export type Xref = "table" | "stream" | "none";

export type BombCase = {
  target: "content" | "object-streams";
  codec: Codec;
  spelling: Spelling;
  place: FilterPlace;
  length: LengthForm;
  xref: Xref;
  /** comments and unusual whitespace between the dictionary's tokens */
  separators: number;
  imageLie: boolean;
  stringTraps: boolean;
  objInStringAfterType: boolean;
  hugeDictionary: boolean;
  benign: boolean;
};

export const bombCase = (benign: boolean): fc.Arbitrary<BombCase> =>
  fc.record({
    target: fc.constantFrom("content" as const, "object-streams" as const),
    codec: fc.constantFrom<Codec>("flate", "lzw", "flate-over-run-length", "hex-over-flate", "a85-over-flate", "flate-hiding-endstream"),
    spelling: fc.constantFrom<Spelling>("plain", "escaped", "abbreviated"),
    place: fc.constantFrom<FilterPlace>("direct", "array", "indirect-name", "indirect-array", "array-of-refs", "in-object-stream"),
    length: fc.constantFrom<LengthForm>("direct", "indirect", "short", "long", "missing"),
    xref: fc.constantFrom<Xref>("table", "stream", "none"),
    separators: fc.integer({ min: 0, max: 2 ** 30 }),
    imageLie: fc.boolean(),
    stringTraps: fc.boolean(),
    objInStringAfterType: fc.boolean(),
    hugeDictionary: fc.boolean(),
    benign: fc.constant(benign),
  });

const MiB = 1024 * 1024;
export const BOMB_STREAM_BYTES = 20 * MiB;
export const BOMB_OBJECT_STREAM_BYTES = 10 * MiB;
export const BENIGN_BYTES = 64 * 1024;

export const latin1 = (s: string) => Uint8Array.from(s, (ch) => ch.charCodeAt(0));
export const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
};

/** LZW codes of `size` zero bytes at the best ratio (each code one byte longer than the last; a clear when the table is full), early change 1. */
export function lzwZeros(size: number): Uint8Array {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  const emit = (code: number, width: number) => {
    acc = ((acc << width) | code) >>> 0;
    bits += width;
    while (bits >= 8) {
      out.push((acc >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
    acc &= (1 << bits) - 1;
  };
  let produced = 0;
  let width = 9;
  while (produced < size) {
    emit(256, width);
    width = 9;
    emit(0, width);
    produced += 1;
    let next = 258;
    for (let code = 258; code < 4096 && produced < size; code++) {
      emit(code, width);
      produced += code - 256; // code 258 is two zeros, 259 three, …
      next++;
      width = Math.max(9, Math.min(12, 32 - Math.clz32(next + 1)));
    }
  }
  emit(257, width);
  if (bits) out.push((acc << (8 - bits)) & 0xff);
  return Uint8Array.from(out);
}

const cache = new Map<string, Uint8Array>();
const memo = (key: string, make: () => Uint8Array) => {
  let v = cache.get(key);
  if (!v) cache.set(key, (v = make()));
  return v;
};
const zlibZeros = (size: number) => memo(`z${size}`, () => zlibSync(new Uint8Array(size), { level: 9 }));

/** The encoded data of a stream decoding to `size` zero bytes, and its filter names (outermost first). */
export function payload(codec: Codec, size: number): { data: Uint8Array; filters: string[] } {
  switch (codec) {
    case "flate":
      return { data: zlibZeros(size), filters: ["FlateDecode"] };
    case "lzw":
      return { data: memo(`l${size}`, () => lzwZeros(size)), filters: ["LZWDecode"] };
    case "flate-over-run-length": {
      const rl = memo(`rl${size}`, () => {
        const runs = new Uint8Array(Math.ceil(size / 128) * 2 + 1);
        for (let i = 0; i + 1 < runs.length; i += 2) runs[i] = 129; // 257 - 129 = 128 copies of the next byte (0)
        runs[runs.length - 1] = 128;
        return zlibSync(runs, { level: 9 });
      });
      return { data: rl, filters: ["FlateDecode", "RunLengthDecode"] };
    }
    case "hex-over-flate":
      return { data: memo(`h${size}`, () => latin1(Array.from(zlibZeros(size), (b) => b.toString(16).padStart(2, "0")).join("") + ">")), filters: ["ASCIIHexDecode", "FlateDecode"] };
    case "a85-over-flate":
      return { data: memo(`a${size}`, () => ascii85(zlibZeros(size))), filters: ["ASCII85Decode", "FlateDecode"] };
    case "flate-hiding-endstream":
      return {
        data: memo(`e${size}`, () => {
          // a stored deflate block holding "endstream", then the rest: a scanner stopping at the first endstream sees ten bytes
          const z = zlibZeros(size);
          const hidden = latin1("\nendstream\n");
          return concat([Uint8Array.of(z[0]!, z[1]!, 0x00, hidden.length, 0, ~hidden.length & 0xff, 0xff), hidden, z.subarray(2)]);
        }),
        filters: ["FlateDecode"],
      };
  }
}

function ascii85(bytes: Uint8Array): Uint8Array {
  let s = "";
  for (let i = 0; i < bytes.length; i += 4) {
    const n = Math.min(4, bytes.length - i);
    let v = 0;
    for (let k = 0; k < 4; k++) v = v * 256 + (k < n ? bytes[i + k]! : 0);
    if (v === 0 && n === 4) {
      s += "z";
      continue;
    }
    const digits: string[] = [];
    for (let k = 0; k < 5; k++) (digits.unshift(String.fromCharCode(33 + (v % 85))), (v = Math.floor(v / 85)));
    s += digits.slice(0, n + 1).join("");
  }
  return latin1(s + "~>");
}

const ABBREVIATIONS: Record<string, string> = { FlateDecode: "Fl", LZWDecode: "LZW", RunLengthDecode: "RL", ASCIIHexDecode: "AHx", ASCII85Decode: "A85" };

/** A tiny deterministic generator for the choices inside one case (separators, which letter is escaped). */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

const SEPARATORS = [" ", "\n", "\x00", "\x0c", "\t", "\r\n", " % x\n", "%obj << endstream\r", "\n%%EOF\n", " %comment\r\n"];

function spell(name: string, spelling: Spelling, pick: (n: number) => number): string {
  if (spelling === "abbreviated") return `/${ABBREVIATIONS[name] ?? name}`;
  if (spelling === "escaped") {
    const i = pick(name.length);
    return `/${name.slice(0, i)}#${name.charCodeAt(i).toString(16).padStart(2, "0")}${name.slice(i + 1)}`;
  }
  return `/${name}`;
}

type Obj = { dict: string; data: Uint8Array } | string;

/** One generated file. */
export function bombPdf(c: BombCase): Uint8Array {
  const pick = rng(c.separators);
  const sep = () => (c.separators === 0 ? " " : SEPARATORS[pick(SEPARATORS.length)]!);
  const size = c.benign ? BENIGN_BYTES : c.target === "content" ? BOMB_STREAM_BYTES : BOMB_OBJECT_STREAM_BYTES;
  const { data, filters } = payload(c.codec, size);
  const names = filters.map((f) => spell(f, c.spelling, pick));

  const objects: Record<number, Obj> = {
    1: "<< /Type /Catalog /Pages 2 0 R >>",
    2: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
  };
  const inObjectStream: Record<number, string> = {};
  // the filter's own objects: 20, 21 (names or arrays), in the body or in an object stream
  const filterObjects: Record<number, string> = {};
  let filterValue: string;
  switch (c.place) {
    case "direct":
      filterValue = names.length === 1 ? names[0]! : `[${sep()}${names.join(sep())}${sep()}]`;
      break;
    case "array":
      filterValue = `[${sep()}${names.join(sep())}${sep()}]`;
      break;
    case "indirect-name":
    case "in-object-stream":
      if (names.length === 1) filterObjects[20] = names[0]!;
      else filterObjects[20] = `[${names.join(" ")}]`;
      filterValue = `20${sep()}0${sep()}R`;
      break;
    case "indirect-array":
      filterObjects[20] = `[${sep()}${names.join(sep())}${sep()}]`;
      filterValue = `20${sep()}0${sep()}R`;
      break;
    case "array-of-refs":
      names.forEach((n, k) => (filterObjects[20 + k] = n));
      filterValue = `[${names.map((_, k) => `${20 + k} 0 R`).join(sep())}]`;
      break;
  }
  if (c.place === "in-object-stream") Object.assign(inObjectStream, filterObjects);
  else Object.assign(objects, filterObjects);

  const dict = (type: string[], extra: string[]): string => {
    const entries: string[] = [...type];
    if (c.length === "indirect") entries.push(`/Length${sep()}30${sep()}0${sep()}R`);
    else if (c.length !== "missing") {
      const n = c.length === "direct" ? data.length : c.length === "short" ? Math.max(0, data.length - 100) : data.length + 1000;
      entries.push(`/Length${sep()}${n}`);
    }
    entries.push(`/Filter${sep()}${filterValue}`);
    if (c.stringTraps) entries.push(`/Note${sep()}(obj << endstream \\( stream >> (nested) endobj)`);
    if (c.imageLie) entries.push(`/Subtype${sep()}/Image${sep()}/Width 1 /Height 1 /BitsPerComponent 8 /ColorSpace /DeviceGray`);
    if (c.hugeDictionary) entries.push(`/Pad${sep()}(${"x".repeat(70_000)})`);
    entries.push(...extra);
    return `<<${sep()}${entries.join(sep())}${sep()}>>`;
  };
  if (c.length === "indirect") objects[30] = String(data.length);

  const content = latin1("BT /F1 12 Tf 72 700 Td (Retail installment contract) Tj ET\n");
  const resources = `<< /Font << /F1 6 0 R >>${c.imageLie ? " /XObject << /Im1 4 0 R >>" : ""} >>`;
  objects[6] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";
  if (c.target === "content") {
    objects[3] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources ${resources} /Contents [5 0 R 4 0 R] >>`;
    objects[4] = { dict: dict([], []), data };
    objects[5] = { dict: `<< /Length ${content.length} >>`, data: content };
  } else {
    objects[3] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources ${resources} /Contents 5 0 R >>`;
    objects[5] = { dict: `<< /Length ${content.length} >>`, data: content };
    const type = c.objInStringAfterType ? [`/Type${sep()}/ObjStm${sep()}(obj)`] : [`/Type${sep()}/ObjStm`];
    // object streams of zeros: N 0 (no objects); a bomb has two of them, each under the one-stream budget
    for (const n of c.benign ? [40] : [40, 41]) objects[n] = { dict: dict(type, [`/N 0 /First 0`]), data };
  }
  return writePdf(objects, inObjectStream, c.xref);
}

/** The file: objects in number order, those of `inObjectStream` in one uncompressed object stream, then the cross-reference data. */
function writePdf(objects: Record<number, Obj>, inObjectStream: Record<number, string>, xref: Xref): Uint8Array {
  const parts: Uint8Array[] = [latin1("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")];
  let at = parts[0]!.length;
  const offsets = new Map<number, number>();
  const held = Object.keys(inObjectStream).map(Number);
  const all: Record<number, Obj> = { ...objects };
  const objStmNumber = 50;
  if (held.length) {
    let header = "";
    let body = "";
    for (const n of held) {
      header += `${n} ${body.length} `;
      body += `${inObjectStream[n]}\n`;
    }
    const text = latin1(header + body);
    all[objStmNumber] = { dict: `<< /Type /ObjStm /N ${held.length} /First ${header.length} /Length ${text.length} >>`, data: text };
  }
  const numbers = Object.keys(all).map(Number).sort((a, b) => a - b);
  for (const n of numbers) {
    const o = all[n]!;
    offsets.set(n, at);
    const chunk = typeof o === "string" ? latin1(`${n} 0 obj\n${o}\nendobj\n`) : concat([latin1(`${n} 0 obj\n${o.dict}\nstream\n`), o.data, latin1("\nendstream\nendobj\n")]);
    parts.push(chunk);
    at += chunk.length;
  }
  const size = Math.max(...numbers, ...held, objStmNumber) + 2;
  if (xref === "table") {
    let table = `xref\n0 ${size}\n0000000000 65535 f \n`;
    for (let n = 1; n < size; n++) table += offsets.has(n) ? `${String(offsets.get(n)).padStart(10, "0")} 00000 n \n` : "0000000000 65535 f \n";
    parts.push(latin1(`${table}trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
  } else if (xref === "stream") {
    const xrefNumber = size - 1;
    offsets.set(xrefNumber, at);
    const rows = new Uint8Array(size * 7);
    for (let n = 0; n < size; n++) {
      const row = rows.subarray(n * 7, n * 7 + 7);
      const inStream = held.indexOf(n);
      const offset = offsets.get(n);
      if (inStream >= 0) (row[0] = 2), writeInt(row, 1, 4, objStmNumber), writeInt(row, 5, 2, inStream);
      else if (offset !== undefined) (row[0] = 1), writeInt(row, 1, 4, offset);
      else (row[0] = 0), writeInt(row, 5, 2, 65535);
    }
    parts.push(
      latin1(`${xrefNumber} 0 obj\n<< /Type /XRef /Size ${size} /W [1 4 2] /Root 1 0 R /Length ${rows.length} >>\nstream\n`),
      rows,
      latin1(`\nendstream\nendobj\nstartxref\n${at}\n%%EOF\n`),
    );
  } else parts.push(latin1("trailer\n<< /Root 1 0 R >>\n%%EOF\n"));
  return concat(parts);
}

function writeInt(row: Uint8Array, from: number, width: number, value: number): void {
  for (let k = width - 1; k >= 0; k--) (row[from + k] = value & 0xff), (value = Math.floor(value / 256));
}
