import {
  decodePDFRawStream,
  PDFArray,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFRawStream,
  StandardFontEmbedder,
  StandardFonts,
  type PDFObject,
} from "pdf-lib";

/**
 * What the tag stripper needs to know about a font: how many bytes make one character code, which
 * text each code stands for, and its advance width (thousandths of an em) so removed glyphs can be
 * replaced by an equal shift. Supported: simple fonts (Type1, TrueType, MMType1: one byte per code,
 * decoded through ToUnicode, /Differences or the byte's Latin-1 value) and Type0 fonts with the
 * Identity-H encoding and a ToUnicode map (two bytes per code). Anything else (Type3, vertical
 * writing, other CMaps) is `supported: false` and its text cannot be edited.
 */
export type FontModel = {
  supported: boolean;
  bytesPerCode: 1 | 2;
  unicode(code: number): string | null;
  width(code: number): number | null;
};

const UNSUPPORTED: FontModel = { supported: false, bytesPerCode: 1, unicode: () => null, width: () => null };

const ASCII_GLYPH_NAMES = (
  "space exclam quotedbl numbersign dollar percent ampersand quotesingle parenleft parenright asterisk plus comma hyphen period slash " +
  "zero one two three four five six seven eight nine colon semicolon less equal greater question at " +
  "A B C D E F G H I J K L M N O P Q R S T U V W X Y Z bracketleft backslash bracketright asciicircum underscore grave " +
  "a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft bar braceright asciitilde"
).split(" ");
const GLYPH_TO_UNICODE = new Map<string, string>(ASCII_GLYPH_NAMES.map((name, i) => [name, String.fromCharCode(32 + i)]));
GLYPH_TO_UNICODE.set("quoteright", "'").set("quoteleft", "`").set("minus", "-");

function glyphNameToUnicode(name: string): string | null {
  const known = GLYPH_TO_UNICODE.get(name);
  if (known) return known;
  const uni = /^uni([0-9A-Fa-f]{4})$/.exec(name) ?? /^u([0-9A-Fa-f]{4,6})$/.exec(name);
  return uni ? String.fromCodePoint(parseInt(uni[1]!, 16)) : null;
}

const STANDARD = new Set<string>(Object.values(StandardFonts));
const STANDARD_ALIASES: Record<string, string> = {
  Arial: StandardFonts.Helvetica,
  ArialMT: StandardFonts.Helvetica,
  "Arial-BoldMT": StandardFonts.HelveticaBold,
  "Arial,Bold": StandardFonts.HelveticaBold,
  TimesNewRoman: StandardFonts.TimesRoman,
  TimesNewRomanPSMT: StandardFonts.TimesRoman,
  CourierNew: StandardFonts.Courier,
  CourierNewPSMT: StandardFonts.Courier,
};
const embedders = new Map<string, StandardFontEmbedder>();

function standardWidth(baseFont: string): ((text: string) => number | null) | null {
  const bare = baseFont.replace(/^[A-Z]{6}\+/, "");
  const name = STANDARD.has(bare) ? bare : STANDARD_ALIASES[bare];
  if (!name) return null;
  let embedder = embedders.get(name);
  if (!embedder) embedders.set(name, (embedder = StandardFontEmbedder.for(name as unknown as Parameters<typeof StandardFontEmbedder.for>[0])));
  return (text) => {
    try {
      return embedder.widthOfTextAtSize(text, 1000);
    } catch {
      return null;
    }
  };
}

export function streamBytes(obj: PDFObject | undefined): Uint8Array | null {
  if (obj instanceof PDFRawStream) return decodePDFRawStream(obj).decode();
  return null;
}

const latin1 = (bytes: Uint8Array) => Array.from(bytes, (b) => String.fromCharCode(b)).join("");

type CodeMap = { lookup(code: number): string | null };

/** ToUnicode CMap: bfchar and bfrange entries (ISO 32000-1 §9.10.3); destinations are UTF-16BE. */
export function parseToUnicode(bytes: Uint8Array): CodeMap {
  const text = latin1(bytes);
  const single = new Map<number, string>();
  const ranges: { lo: number; hi: number; base: string | null; list: string[] | null }[] = [];
  const utf16 = (hex: string) => {
    let s = "";
    for (let i = 0; i + 4 <= hex.length; i += 4) s += String.fromCharCode(parseInt(hex.slice(i, i + 4), 16));
    if (hex.length === 2) s = String.fromCharCode(parseInt(hex, 16));
    return s;
  };
  for (const block of text.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const m of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>/g)) single.set(parseInt(m[1]!, 16), utf16(m[2]!));
  }
  for (const block of text.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const m of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(?:<([0-9A-Fa-f]*)>|\[([^\]]*)\])/g)) {
      const list = m[4] !== undefined ? [...m[4].matchAll(/<([0-9A-Fa-f]*)>/g)].map((x) => utf16(x[1]!)) : null;
      ranges.push({ lo: parseInt(m[1]!, 16), hi: parseInt(m[2]!, 16), base: m[3] ?? null, list });
    }
  }
  return {
    lookup(code) {
      const hit = single.get(code);
      if (hit !== undefined) return hit;
      for (const r of ranges) {
        if (code < r.lo || code > r.hi) continue;
        if (r.list) return r.list[code - r.lo] ?? null;
        if (r.base === null || r.base.length === 0) return null;
        // The last UTF-16 unit of the destination is incremented across the range.
        const base = utf16(r.base);
        return base.slice(0, -1) + String.fromCharCode(base.charCodeAt(base.length - 1) + (code - r.lo));
      }
      return null;
    },
  };
}

function numbers(arr: PDFArray | undefined): number[] {
  if (!arr) return [];
  const out: number[] = [];
  for (let i = 0; i < arr.size(); i++) {
    const v = arr.lookup(i);
    out.push(v instanceof PDFNumber ? v.asNumber() : NaN);
  }
  return out;
}

function simpleFont(font: PDFDict): FontModel {
  const toUnicode = streamBytes(font.lookup(PDFName.of("ToUnicode")));
  const cmap = toUnicode ? parseToUnicode(toUnicode) : null;
  const differences = new Map<number, string>();
  const encoding = font.lookup(PDFName.of("Encoding"));
  if (encoding instanceof PDFDict) {
    const diffs = encoding.lookup(PDFName.of("Differences"));
    if (diffs instanceof PDFArray) {
      let code = 0;
      for (let i = 0; i < diffs.size(); i++) {
        const v = diffs.lookup(i);
        if (v instanceof PDFNumber) code = v.asNumber();
        else if (v instanceof PDFName) differences.set(code++, v.decodeText());
      }
    }
  }
  const unicode = (code: number): string | null => {
    const mapped = cmap?.lookup(code);
    if (mapped) return mapped;
    const glyph = differences.get(code);
    if (glyph !== undefined) return glyphNameToUnicode(glyph);
    return String.fromCharCode(code);
  };
  const firstChar = (font.lookup(PDFName.of("FirstChar")) as PDFNumber | undefined)?.asNumber?.() ?? 0;
  const widths = numbers(font.lookup(PDFName.of("Widths")) as PDFArray | undefined);
  const baseFont = (font.lookup(PDFName.of("BaseFont")) as PDFName | undefined)?.decodeText?.() ?? "";
  const standard = widths.length === 0 ? standardWidth(baseFont) : null;
  return {
    supported: true,
    bytesPerCode: 1,
    unicode,
    width(code) {
      if (widths.length) {
        const w = widths[code - firstChar];
        return w !== undefined && Number.isFinite(w) ? w : null;
      }
      const text = unicode(code);
      return standard && text ? standard(text) : null;
    },
  };
}

function type0Font(font: PDFDict): FontModel {
  const encoding = font.lookup(PDFName.of("Encoding"));
  const toUnicode = streamBytes(font.lookup(PDFName.of("ToUnicode")));
  if (!(encoding instanceof PDFName) || encoding.decodeText() !== "Identity-H" || !toUnicode) return UNSUPPORTED;
  const cmap = parseToUnicode(toUnicode);
  const descendant = (font.lookup(PDFName.of("DescendantFonts")) as PDFArray | undefined)?.lookup(0);
  const widths = new Map<number, number>();
  let defaultWidth = 1000;
  if (descendant instanceof PDFDict) {
    const dw = descendant.lookup(PDFName.of("DW"));
    if (dw instanceof PDFNumber) defaultWidth = dw.asNumber();
    const w = descendant.lookup(PDFName.of("W"));
    if (w instanceof PDFArray) {
      // W: c [w1 w2 ...] | cFirst cLast w
      for (let i = 0; i < w.size(); ) {
        const first = (w.lookup(i) as PDFNumber).asNumber();
        const next = w.lookup(i + 1);
        if (next instanceof PDFArray) {
          numbers(next).forEach((v, k) => widths.set(first + k, v));
          i += 2;
        } else {
          const last = (next as PDFNumber).asNumber();
          const v = (w.lookup(i + 2) as PDFNumber).asNumber();
          for (let c = first; c <= last && c - first < 65536; c++) widths.set(c, v);
          i += 3;
        }
      }
    }
  }
  return { supported: true, bytesPerCode: 2, unicode: (code) => cmap.lookup(code), width: (code) => widths.get(code) ?? defaultWidth };
}

export function fontModel(font: PDFObject | undefined): FontModel {
  if (!(font instanceof PDFDict)) return UNSUPPORTED;
  try {
    const subtype = (font.lookup(PDFName.of("Subtype")) as PDFName | undefined)?.decodeText?.();
    if (subtype === "Type0") return type0Font(font);
    if (subtype === "Type1" || subtype === "TrueType" || subtype === "MMType1") return simpleFont(font);
    return UNSUPPORTED;
  } catch {
    return UNSUPPORTED;
  }
}
