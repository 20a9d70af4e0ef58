import { PDFArray, PDFDict, PDFDocument, PDFName, type PDFPage } from "pdf-lib";
import { hexOperand, numberOperand, tokenize, type Token } from "./content-stream";
import { fontModel, streamBytes, type FontModel } from "./fonts";

/** A tag found in the text layer: its text with whitespace removed, and its box in user space. */
export type TagToStrip = { key: string; rect: [number, number, number, number] };

type TextState = { font: FontModel | null; size: number; tc: number; tw: number };

type Show = {
  start: number;
  end: number;
  op: "Tj" | "TJ" | "'" | '"';
  elements: (Uint8Array | number)[];
  extra: number[]; // the aw and ac operands of "
  state: TextState;
};

type Glyph = { show: number; element: number; offset: number; length: number; code: number };

const encoder = new TextEncoder();

/**
 * Removes embedded tags from the page content streams: every text-showing operator that shows part
 * of a tag is rewritten as a TJ array in which the tag's glyphs are replaced by a shift of the same
 * width, so text before and after the tag stays exactly where it was. The tag's rectangle is then
 * painted over in white as well. Returns the tags (per page) that could not be found in the content
 * streams (text inside form XObjects, fonts whose codes cannot be decoded).
 */
export async function stripTags(bytes: Uint8Array, tagsByPage: Map<number, TagToStrip[]>): Promise<{ bytes: Uint8Array; missed: { page: number; key: string }[] }> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const missed: { page: number; key: string }[] = [];
  for (const [pageNumber, tags] of tagsByPage) {
    const page = doc.getPage(pageNumber - 1);
    const content = pageContent(page);
    const { shows, glyphs, text, glyphAt } = scanShows(content, fontsOf(page));
    const available = new Map<string, { from: number; to: number }[]>();
    for (const m of text.matchAll(/\{\{[^{}]*\}\}/g)) {
      const key = m[0].replace(/\s+/g, "");
      const list = available.get(key) ?? [];
      list.push({ from: m.index, to: m.index + m[0].length });
      available.set(key, list);
    }
    const removed = new Set<number>();
    for (const tag of tags) {
      const hit = available.get(tag.key)?.shift();
      if (!hit) {
        missed.push({ page: pageNumber, key: tag.key });
        continue;
      }
      for (let k = hit.from; k < hit.to; k++) removed.add(glyphAt[k]!);
    }
    const rewritten = rewrite(content, shows, glyphs, removed);
    const covers = tags.map(({ rect: [x0, y0, x1, y1] }) => `${[x0, y0, x1 - x0, y1 - y0].map(numberOperand).join(" ")} re f`).join("\n");
    const stream = concat([encoder.encode("q\n"), rewritten, encoder.encode(`\nQ\nq 1 1 1 rg\n${covers}\nQ\n`)]);
    page.node.set(PDFName.of("Contents"), doc.context.register(doc.context.flateStream(stream)));
  }
  return { bytes: await doc.save(), missed };
}

function pageContent(page: PDFPage): Uint8Array {
  const contents = page.node.Contents();
  const parts: Uint8Array[] = [];
  if (contents instanceof PDFArray) {
    for (let i = 0; i < contents.size(); i++) {
      const bytes = streamBytes(contents.lookup(i));
      if (bytes) parts.push(bytes, encoder.encode("\n"));
    }
  } else {
    const bytes = streamBytes(contents);
    if (bytes) parts.push(bytes);
  }
  return concat(parts);
}

function fontsOf(page: PDFPage): (name: string) => FontModel | null {
  const fonts = page.node.Resources()?.lookup(PDFName.of("Font"));
  const cache = new Map<string, FontModel | null>();
  return (name) => {
    if (!cache.has(name)) cache.set(name, fonts instanceof PDFDict ? fontModel(fonts.lookup(PDFName.of(name))) : null);
    return cache.get(name)!;
  };
}

/** Walks the operators, keeping the text state, and decodes every shown string into glyphs. */
function scanShows(content: Uint8Array, fontNamed: (name: string) => FontModel | null) {
  const shows: Show[] = [];
  const glyphs: Glyph[] = [];
  const glyphAt: number[] = []; // text index -> glyph index
  let text = "";
  let state: TextState = { font: null, size: 0, tc: 0, tw: 0 };
  const saved: TextState[] = [];
  let operands: Token[] = [];
  for (const token of tokenize(content)) {
    if (token.t !== "op") {
      operands.push(token);
      continue;
    }
    const nums = operands.filter((o) => o.t === "num").map((o) => (o as { v: number }).v);
    switch (token.v) {
      case "q":
        saved.push({ ...state });
        break;
      case "Q":
        state = saved.pop() ?? state;
        break;
      case "Tf": {
        const name = operands.find((o) => o.t === "name") as { v: string } | undefined;
        state = { ...state, font: name ? fontNamed(name.v) : null, size: nums.at(-1) ?? state.size };
        break;
      }
      case "Tc":
        state = { ...state, tc: nums.at(-1) ?? 0 };
        break;
      case "Tw":
        state = { ...state, tw: nums.at(-1) ?? 0 };
        break;
      case "Tj":
      case "'":
      case '"':
      case "TJ": {
        const elements = operands.filter((o) => o.t === "str" || (token.v === "TJ" && o.t === "num")).map((o) => (o.t === "str" ? o.bytes : (o as { v: number }).v));
        const extra = token.v === '"' ? nums.slice(0, 2) : [];
        if (token.v === '"') state = { ...state, tw: extra[0] ?? state.tw, tc: extra[1] ?? state.tc };
        if (operands.length === 0) break;
        const show: Show = { start: operands[0]!.s, end: token.e, op: token.v, elements, extra, state };
        const index = shows.push(show) - 1;
        const font = state.font;
        if (!font?.supported) break;
        elements.forEach((el, e) => {
          if (typeof el === "number") return;
          for (let off = 0; off + font.bytesPerCode <= el.length; off += font.bytesPerCode) {
            const code = font.bytesPerCode === 2 ? (el[off]! << 8) | el[off + 1]! : el[off]!;
            const g = glyphs.push({ show: index, element: e, offset: off, length: font.bytesPerCode, code }) - 1;
            const chars = font.unicode(code) ?? "\ufffd";
            for (let c = 0; c < chars.length; c++) glyphAt.push(g);
            text += chars;
          }
        });
        break;
      }
    }
    operands = [];
  }
  return { shows, glyphs, text, glyphAt };
}

/** The content with each show that loses glyphs replaced by an equivalent TJ without them. */
function rewrite(content: Uint8Array, shows: Show[], glyphs: Glyph[], removed: Set<number>): Uint8Array {
  if (removed.size === 0) return content;
  const byShow = new Map<number, Glyph[]>();
  glyphs.forEach((g, i) => {
    if (removed.has(i)) byShow.set(g.show, [...(byShow.get(g.show) ?? []), g]);
  });
  const parts: Uint8Array[] = [];
  let cursor = 0;
  for (const [index, gone] of [...byShow].sort((a, b) => a[0] - b[0])) {
    const show = shows[index]!;
    parts.push(content.subarray(cursor, show.start), encoder.encode(replacement(show, gone)));
    cursor = show.end;
  }
  parts.push(content.subarray(cursor));
  return concat(parts);
}

function replacement(show: Show, gone: Glyph[]): string {
  const { font, size, tc, tw } = show.state;
  const drop = new Map(gone.map((g) => [`${g.element}:${g.offset}`, g]));
  const out: string[] = [];
  let pending = 0;
  let run: number[] = [];
  const flushRun = () => {
    if (run.length) out.push(hexOperand(Uint8Array.from(run)));
    run = [];
  };
  const flushShift = () => {
    if (pending !== 0) out.push(numberOperand(pending));
    pending = 0;
  };
  show.elements.forEach((el, e) => {
    if (typeof el === "number") {
      flushRun();
      pending += el;
      return;
    }
    const step = font?.bytesPerCode ?? 1;
    for (let off = 0; off < el.length; off += step) {
      const g = drop.get(`${e}:${off}`);
      if (!g) {
        flushShift();
        for (let k = off; k < Math.min(off + step, el.length); k++) run.push(el[k]!);
        continue;
      }
      flushRun();
      // TJ numbers shift by -n/1000 em; a glyph advanced by w/1000 em plus Tc (and Tw for a one-byte space).
      const spacing = tc + (g.length === 1 && g.code === 32 ? tw : 0);
      pending -= (font?.width(g.code) ?? 0) + (size ? (spacing * 1000) / size : 0);
    }
  });
  flushRun();
  flushShift();
  const prefix = show.op === "'" ? "T* " : show.op === '"' ? `${numberOperand(show.extra[0] ?? 0)} Tw ${numberOperand(show.extra[1] ?? 0)} Tc T* ` : "";
  return `${prefix}[${out.join(" ")}] TJ`;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
