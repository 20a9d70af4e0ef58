import { StandardFontEmbedder, StandardFonts } from "pdf-lib";
import type { Area, PdfDocument, PdfPage, PdfTextItem, PdfViewport } from "../open-pdf";

export type { Area };

const round = (n: number) => Math.round(n * 1e6) / 1e6;

let helvetica: StandardFontEmbedder | null = null;
const widthCache = new Map<string, number>();

/**
 * pdf.js reports one width per text item, not per glyph. Where a match starts or ends inside an item
 * its position is interpolated with Helvetica's advance widths (exact for Helvetica/Arial, close for
 * other proportional fonts) or evenly for monospaced fonts; item boundaries themselves are exact.
 */
function proxyWidth(ch: string): number {
  let w = widthCache.get(ch);
  if (w === undefined) {
    helvetica ??= StandardFontEmbedder.for(StandardFonts.Helvetica as unknown as Parameters<typeof StandardFontEmbedder.for>[0]);
    try {
      w = helvetica.widthOfTextAtSize(ch, 1000) || 556;
    } catch {
      w = 556; // not in WinAnsi: an average glyph
    }
    widthCache.set(ch, w);
  }
  return w;
}

type ItemGeometry = {
  item: PdfTextItem;
  ux: number;
  uy: number;
  vx: number;
  vy: number;
  /** font size in user space units (length of the text matrix's y axis) */
  size: number;
  /** ascent and descent in em: the glyph box spans v * descent .. v * ascent from the baseline */
  ascent: number;
  descent: number;
  monospace: boolean;
  offsets?: Float64Array;
};

/** Whether a UTF-16 code unit is JavaScript whitespace (what `/\s/` matches): runs of it collapse to one space. */
export function isSpace(c: number): boolean {
  if (c === 32 || (c >= 9 && c <= 13)) return true;
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** BMP code unit -> its lower case as one code unit (itself where lower-casing changes the length); 0 = not yet known. */
const lowerBmp = new Uint16Array(0x10000);

/** `String.fromCharCode(c).toLowerCase()` when that is one code unit, else `c`: case folding code point by code point. */
function lowerUnit(c: number): number {
  if (c < 0x80) return c >= 65 && c <= 90 ? c + 32 : c;
  let l = lowerBmp[c]!;
  if (l === 0) {
    const s = String.fromCharCode(c).toLowerCase();
    l = s.length === 1 ? s.charCodeAt(0) : c;
    lowerBmp[c] = l;
  }
  return l;
}

const CHUNK = 8192;

/** A string from UTF-16 code units, in chunks (an argument list has a size limit). */
function decodeUnits(units: Uint16Array): string {
  let out = "";
  for (let at = 0; at < units.length; at += CHUNK) out += String.fromCharCode.apply(null, units.subarray(at, at + CHUNK) as unknown as number[]);
  return out;
}

/**
 * The text layer of one page, whitespace-collapsed, with each character traced back to the text item
 * (and character) it came from, so a match in `text` can be turned into a rectangle on the page.
 * Separate items on one line are joined with a space when a visible gap separates them; items on
 * different lines always are, so a phrase can match across items and line breaks.
 *
 * Built in one walk over the items' characters into typed arrays: the text's code units, their lower
 * case (what anchors are searched in) and their origin. The text as a string is made only when asked
 * for (embedded tags, which only pages containing `{{` can hold).
 */
export class PageText {
  /** the text as UTF-16 code units */
  readonly units: Uint16Array;
  /** `units` lower-cased code point by code point (same indices: a character whose lower case is longer keeps its case); masked ranges are 0 and never match */
  readonly lower: Uint16Array;
  /** characters in the text (it never starts with a space; trailing space excluded, as `text.trim()`) */
  readonly textChars: number;
  /** the text contains `{{`, where an embedded tag starts */
  readonly mayHoldTags: boolean;
  private readonly itemOf: Int32Array;
  private readonly charOf: Int32Array;
  private textString: string | null = null;

  constructor(
    readonly page: number,
    private readonly viewport: PdfViewport,
    private readonly items: ItemGeometry[],
  ) {
    let capacity = 0;
    for (const g of items) capacity += g.item.str.length + 2;
    const units = new Uint16Array(capacity);
    const lower = new Uint16Array(capacity);
    const itemOf = new Int32Array(capacity);
    const charOf = new Int32Array(capacity);
    let n = 0;
    let endsWithSpace = true; // an empty text counts as ending with one: no leading space
    let braces = false;
    let prev: ItemGeometry | null = null;
    for (let i = 0; i < items.length; i++) {
      const g = items[i]!;
      const str = g.item.str;
      const len = str.length;
      if (prev && !endsWithSpace && len > 0 && separated(prev, g)) {
        units[n] = lower[n] = 32;
        itemOf[n] = charOf[n] = -1;
        n++;
        endsWithSpace = true;
      }
      for (let k = 0; k < len; k++) {
        const c = str.charCodeAt(k);
        if (isSpace(c)) {
          if (endsWithSpace) continue;
          units[n] = lower[n] = 32;
          endsWithSpace = true;
        } else {
          units[n] = c;
          if (c >= 0xdc00 && c <= 0xdfff && n > 0 && units[n - 1]! >= 0xd800 && units[n - 1]! <= 0xdbff) {
            // a surrogate pair (possibly split across items): lower-cased as one code point
            const pair = String.fromCharCode(units[n - 1]!, c);
            const l = pair.toLowerCase();
            const same = l.length !== 2;
            lower[n - 1] = same ? units[n - 1]! : l.charCodeAt(0);
            lower[n] = same ? c : l.charCodeAt(1);
          } else lower[n] = lowerUnit(c);
          if (c === 123 && n > 0 && units[n - 1] === 123) braces = true;
          endsWithSpace = false;
        }
        itemOf[n] = i;
        charOf[n] = k;
        n++;
      }
      if (g.item.hasEOL && !endsWithSpace) {
        units[n] = lower[n] = 32;
        itemOf[n] = charOf[n] = -1;
        n++;
        endsWithSpace = true;
      }
      if (len > 0) prev = g;
    }
    this.units = units.subarray(0, n);
    this.lower = lower.subarray(0, n);
    this.itemOf = itemOf.subarray(0, n);
    this.charOf = charOf.subarray(0, n);
    this.textChars = n > 0 && units[n - 1] === 32 ? n - 1 : n;
    this.mayHoldTags = braces;
  }

  /** The whitespace-collapsed text as a string. */
  get text(): string {
    return (this.textString ??= decodeUnits(this.units));
  }

  /** Hides text[start, end) from searches (an embedded tag is not text an anchor may match). */
  mask(start: number, end: number): void {
    this.lower.fill(0, start, end);
  }

  get width(): number {
    return this.viewport.width;
  }

  get height(): number {
    return this.viewport.height;
  }

  /** The rectangle (Area) covering text[start, end): the bounding box of its glyphs on the displayed page. */
  rect(start: number, end: number): Area {
    const points = this.corners(start, end).map(([x, y]) => this.viewport.convertToViewportPoint(x, y) as [number, number]);
    if (points.length === 0) return { page: this.page, x: 0, y: 0, w: 0, h: 0 };
    const [minX, minY, maxX, maxY] = bbox(points);
    const x = Math.max(0, minX / this.viewport.width);
    const y = Math.max(0, minY / this.viewport.height);
    const w = Math.min(1, maxX / this.viewport.width) - x;
    const h = Math.min(1, maxY / this.viewport.height) - y;
    return { page: this.page, x: round(x), y: round(y), w: round(w), h: round(h) };
  }

  /** The rectangle of text[start, end) in the page's own (unrotated) user space: [x0, y0, x1, y1]. */
  userSpaceRect(start: number, end: number): [number, number, number, number] | null {
    const points = this.corners(start, end);
    return points.length ? bbox(points) : null;
  }

  /** Corners, in user space, of each run of characters of text[start, end) that share a text item. */
  private corners(start: number, end: number): [number, number][] {
    const out: [number, number][] = [];
    let k = start;
    while (k < end) {
      const item = this.itemOf[k]!;
      if (item < 0) {
        k++;
        continue;
      }
      let last = k;
      while (last + 1 < end && this.itemOf[last + 1] === item) last++;
      const g = this.items[item]!;
      const offsets = (g.offsets ??= advanceOffsets(g));
      const s0 = offsets[this.charOf[k]!]! * g.item.width;
      const s1 = offsets[this.charOf[last]! + 1]! * g.item.width;
      const e = g.item.transform[4]!;
      const f = g.item.transform[5]!;
      for (const s of [s0, s1]) {
        for (const t of [g.descent, g.ascent]) out.push([e + g.ux * s + g.vx * t, f + g.uy * s + g.vy * t]);
      }
      k = last + 1;
    }
    return out;
  }
}

function bbox(points: [number, number][]): [number, number, number, number] {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

function separated(prev: ItemGeometry, next: ItemGeometry): boolean {
  const p = prev.item.transform;
  const n = next.item.transform;
  const endX = p[4]! + prev.ux * prev.item.width;
  const endY = p[5]! + prev.uy * prev.item.width;
  const dx = n[4]! - endX;
  const dy = n[5]! - endY;
  const along = dx * prev.ux + dy * prev.uy;
  const across = dx * -prev.uy + dy * prev.ux;
  const size = prev.size;
  return Math.abs(across) > 0.5 * size || along > 0.15 * size || along < -0.5 * size;
}

function advanceOffsets(g: ItemGeometry): Float64Array {
  const str = g.item.str;
  const out = new Float64Array(str.length + 1);
  let total = 0;
  for (let k = 0; k < str.length; k++) {
    out[k] = total;
    total += g.monospace ? 1 : proxyWidth(str[k]!);
  }
  out[str.length] = total;
  if (total > 0) for (let k = 0; k <= str.length; k++) out[k]! /= total;
  return out;
}

/** Reads one page's text layer with pdf.js; the page's parsed resources are released afterwards. */
export async function readPageText(pdf: PdfDocument, pageNumber: number): Promise<PageText> {
  const page = await pdf.getPage(pageNumber);
  const viewport = page.getViewport({ scale: 1 });
  const content = await page.getTextContent();
  page.cleanup();
  return pageTextOf(pageNumber, viewport, content);
}

/** A page's text layer from what pdf.js's `getTextContent()` returned for it (marked-content entries are skipped). */
export function pageTextOf(pageNumber: number, viewport: PdfViewport, content: Awaited<ReturnType<PdfPage["getTextContent"]>>): PageText {
  const items: ItemGeometry[] = [];
  for (const raw of content.items) {
    if (!("str" in raw)) continue;
    const item = raw as PdfTextItem;
    const [a, b, c, d] = item.transform as [number, number, number, number];
    const along = Math.hypot(a, b) || 1;
    const across = Math.hypot(c, d) || item.height || 1;
    const style = content.styles[item.fontName] ?? {};
    const ascent = style.ascent && style.ascent > 0 ? style.ascent : 0.8;
    const descent = style.descent && style.descent < 0 ? style.descent : -0.2;
    items.push({
      item,
      ux: a / along,
      uy: b / along,
      vx: c,
      vy: d,
      size: across,
      ascent,
      descent,
      monospace: style.fontFamily === "monospace",
    });
  }
  return new PageText(pageNumber, viewport, items);
}
