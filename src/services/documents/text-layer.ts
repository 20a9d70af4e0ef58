import { StandardFontEmbedder, StandardFonts } from "pdf-lib";
import type { Area, PdfDocument, PdfTextItem, PdfViewport } from "../../lib/pdf";

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

/**
 * The text layer of one page, whitespace-collapsed, with each character traced back to the text item
 * (and character) it came from, so a match in `text` can be turned into a rectangle on the page.
 * Separate items on one line are joined with a space when a visible gap separates them; items on
 * different lines always are, so a phrase can match across items and line breaks.
 */
export class PageText {
  readonly text: string;
  /** `text` lower-cased character by character (same indices); masked ranges never match */
  lower: string;
  private readonly itemOf: Int32Array;
  private readonly charOf: Int32Array;

  constructor(
    readonly page: number,
    private readonly viewport: PdfViewport,
    private readonly items: ItemGeometry[],
  ) {
    let text = "";
    const itemOf: number[] = [];
    const charOf: number[] = [];
    const push = (c: string, item: number, index: number) => {
      text += c;
      itemOf.push(item);
      charOf.push(index);
    };
    const endsWithSpace = () => text.length === 0 || text.endsWith(" ");
    let prev: ItemGeometry | null = null;
    items.forEach((g, i) => {
      const { item } = g;
      if (prev && !endsWithSpace() && item.str.length > 0 && separated(prev, g)) push(" ", -1, -1);
      for (let k = 0; k < item.str.length; k++) {
        const c = item.str[k]!;
        if (/\s/.test(c)) {
          if (!endsWithSpace()) push(" ", i, k);
        } else push(c, i, k);
      }
      if (item.hasEOL && !endsWithSpace()) push(" ", -1, -1);
      if (item.str.length > 0) prev = g;
    });
    this.text = text;
    let lower = "";
    for (const c of text) {
      const l = c.toLowerCase();
      lower += l.length === c.length ? l : c; // keep indices aligned with `text`
    }
    this.lower = lower;
    this.itemOf = Int32Array.from(itemOf);
    this.charOf = Int32Array.from(charOf);
  }

  /** Hides text[start, end) from searches (an embedded tag is not text an anchor may match). */
  mask(start: number, end: number): void {
    this.lower = this.lower.slice(0, start) + "\u0000".repeat(end - start) + this.lower.slice(end);
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

/** Visits the pages in document order, one at a time, so only one page's text is held at once. */
export async function eachPage(pdf: PdfDocument, pages: Iterable<number>, visit: (page: PageText) => void): Promise<void> {
  for (const n of pages) visit(await readPageText(pdf, n));
}

export const allPages = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
