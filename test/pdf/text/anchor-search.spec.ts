import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { closePdf, openPdf, type PdfTextItem, type PdfViewport } from "../../../src/pdf/open-pdf";
import { AnchorSearch, normalizeAnchor } from "../../../src/pdf/text/anchors";
import { resolveFields, scanDocument } from "../../../src/services/documents/place-fields";
import { findTags } from "../../../src/services/documents/tags";
import { isSpace, pageTextOf } from "../../../src/pdf/text/text-layer";
import { TemplateFieldsInputSchema } from "../../../src/services/templates/schema";
import { anchor, buildPdf, expectedRect, type PageSpec } from "../../helpers/templates";

// Issue 17: the text layer is built in one walk into typed arrays and every anchor is found in one
// walk of each page (Aho-Corasick). These tests hold it to the straightforward algorithm it replaced.

const VIEWPORT: PdfViewport = { width: 612, height: 792, convertToViewportPoint: (x, y) => [x, 792 - y] };

type SyntheticItem = { str: string; x: number; y: number; hasEOL: boolean };

const textItem = (s: SyntheticItem): PdfTextItem => ({ str: s.str, dir: "ltr", transform: [12, 0, 0, 12, s.x, s.y], width: s.str.length * 6, height: 12, fontName: "F1", hasEOL: s.hasEOL });
const pageOf = (page: number, items: SyntheticItem[]) => pageTextOf(page, VIEWPORT, { items: items.map(textItem), styles: {} });

/**
 * The reference: the text joined with string concatenation and a regular expression per character,
 * lower-cased code point by code point, tags found with the tag pattern and blanked out, each anchor
 * searched with `indexOf` from the end of its last match.
 */
function reference(pages: SyntheticItem[][], queries: { text: string; occurrence: number; page?: number }[], tags: boolean) {
  const seen = queries.map(() => 0);
  const found: ({ page: number; start: number; end: number } | null)[] = queries.map(() => null);
  const texts: string[] = [];
  const tagRanges: [number, number, number][] = [];
  pages.forEach((items, p) => {
    const page = p + 1;
    let text = "";
    let prev: SyntheticItem | null = null;
    for (const it of items) {
      // the synthetic items: 12-point text, 6 points per character, on lines 12 points apart or more
      const gap = prev && (Math.abs(it.y - prev.y) > 6 || it.x - (prev.x + prev.str.length * 6) > 1.8 || it.x - (prev.x + prev.str.length * 6) < -6);
      if (prev && text.length && !text.endsWith(" ") && it.str.length && gap) text += " ";
      for (let k = 0; k < it.str.length; k++) {
        const unit = it.str[k]!; // code unit by code unit, as pdf.js's strings are indexed
        if (/\s/.test(unit)) {
          if (text.length && !text.endsWith(" ")) text += " ";
        } else text += unit;
      }
      if (it.hasEOL && text.length && !text.endsWith(" ")) text += " ";
      if (it.str.length) prev = it;
    }
    texts.push(text);
    let lower = "";
    for (const c of text) {
      const l = c.toLowerCase();
      lower += l.length === c.length ? l : c;
    }
    if (tags) {
      for (const m of text.matchAll(/\{\{([^{}]*)\}\}/g)) {
        tagRanges.push([page, m.index, m.index + m[0].length]);
        lower = lower.slice(0, m.index) + "\u0000".repeat(m[0].length) + lower.slice(m.index + m[0].length);
      }
    }
    queries.forEach((q, i) => {
      if (found[i] || (q.page !== undefined && q.page !== page)) return;
      const needle = normalizeAnchor(q.text);
      for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + needle.length)) {
        seen[i]! += 1;
        if (seen[i] === q.occurrence) {
          found[i] = { page, start: at, end: at + needle.length };
          return;
        }
      }
    });
  });
  return { texts, found, seen, tagRanges };
}

describe("one walk per page finds what the straightforward search found", () => {
  it("treats exactly the characters JavaScript calls whitespace as whitespace", () => {
    for (let c = 0; c < 0x10000; c++) expect(isSpace(c), `U+${c.toString(16)}`).toBe(/\s/.test(String.fromCharCode(c)));
  });

  it("agrees with the reference on random pages, anchors and tags (same text, same matches, same counts)", () => {
    const PIECES = ["Sign", "here", "INITIALS", "initials", "of", "party", "01", " ", "  ", "\t", "\u00a0", "{{", "}}", "{{s;type=text;role=a}}", "{", "}", "café", "CAFÉ", "Straße", "İ", "ΣΑΣ", "ς", "\u{10400}", "\u{10428}", "\ud801", "\udc00", "a", "aa", "aaa", "-"];
    const item = fc.record({
      str: fc.array(fc.constantFrom(...PIECES), { maxLength: 5 }).map((p) => p.join("")),
      // the next item: right after the previous one, after a small or a wide gap, or on a new line
      layout: fc.constantFrom("adjacent", "small gap", "wide gap", "new line"),
      hasEOL: fc.boolean(),
    });
    const layout = (items: { str: string; layout: string; hasEOL: boolean }[]): SyntheticItem[] => {
      let x = 50;
      let y = 700;
      return items.map((it) => {
        if (it.layout === "new line") {
          x = 50;
          y -= 14;
        } else if (it.layout === "small gap") x += 1;
        else if (it.layout === "wide gap") x += 12;
        const placed = { str: it.str, x, y, hasEOL: it.hasEOL };
        x += it.str.length * 6;
        return placed;
      });
    };
    const query = fc.record({ from: fc.nat(), length: fc.integer({ min: 1, max: 20 }), upper: fc.boolean(), occurrence: fc.integer({ min: 1, max: 4 }), page: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }) });
    fc.assert(
      fc.property(fc.array(fc.array(item, { maxLength: 10 }), { minLength: 1, maxLength: 3 }), fc.array(query, { minLength: 1, maxLength: 12 }), fc.boolean(), (rawPages, rawQueries, tags) => {
        const pages = rawPages.map(layout);
        const all = pages.flatMap((items) => items.map((i) => i.str)).join(" ");
        const queries = rawQueries.map((q) => {
          const start = all.length ? q.from % all.length : 0;
          let text = all.slice(start, start + q.length).trim() || "initials";
          if (q.upper) text = text.toUpperCase();
          return { text, occurrence: q.occurrence, page: q.page };
        });
        const expected = reference(pages, queries, tags);
        const search = new AnchorSearch(queries);
        const rects: unknown[] = queries.map(() => null);
        const foundTags: { page: number; raw: string }[] = [];
        pages.forEach((items, p) => {
          const page = pageOf(p + 1, items);
          expect(page.text).toBe(expected.texts[p]);
          expect(page.textChars).toBe(expected.texts[p]!.trim().length);
          if (tags) foundTags.push(...findTags(page).map((t) => ({ page: t.page, raw: t.raw })));
          search.visit(page);
          expected.found.forEach((f, i) => {
            if (f?.page === p + 1) rects[i] = page.rect(f.start, f.end);
          });
        });
        queries.forEach((_, i) => {
          const r = search.result(i);
          expect(r).toEqual(expected.found[i] ? { found: true, match: rects[i] } : { found: false, matches: expected.seen[i] });
        });
        expect(search.done).toBe(expected.found.every((f) => f !== null));
        if (tags) expect(foundTags).toEqual(expected.tagRanges.map(([page, start, end]) => ({ page, raw: expected.texts[page - 1]!.slice(start, end) })));
      }),
      { numRuns: 400 },
    );
  });
});

async function scan(pages: PageSpec[], fields: unknown[], tags: boolean) {
  const built = await buildPdf(pages);
  const pdf = await openPdf(built.bytes.slice());
  try {
    const input = TemplateFieldsInputSchema.parse(fields);
    const result = await scanDocument(pdf, { tags, fields: input });
    return { ...resolveFields(input, result, ["fields"]), tags: result.tags, built };
  } finally {
    await closePdf(pdf);
  }
}

describe("anchors found in one walk of each page of a real PDF", () => {
  const TOLERANCE = 0.001;
  const near = (a: { x: number; y: number; w: number; h: number } | undefined, e: { x: number; y: number; w: number; h: number }) => {
    expect(a, "a match").toBeDefined();
    for (const k of ["x", "y", "w", "h"] as const) expect(Math.abs(a![k] - e[k]), `${k}`).toBeLessThan(TOLERANCE);
  };

  it("places two different anchors on one page, one of them the end of the other", async () => {
    const text = "Initials of party 01: ____";
    const { fields, issues, built } = await scan([{ lines: [{ text, x: 72, y: 700 }] }], [anchor("long", { anchor_text: "initials of party 01" }), anchor("short", { anchor_text: "party 01" })], false);
    expect(issues).toEqual([]);
    near(fields[0]!.anchor_match, expectedRect(built.font, built.drawn[0]!, text, 0, 20));
    near(fields[1]!.anchor_match, expectedRect(built.font, built.drawn[0]!, text, 12, 20));
  });

  it("places the same anchor text asked for twice, and its second occurrence, on one page", async () => {
    const lines = [
      { text: "Sign here", x: 72, y: 700 },
      { text: "Sign here", x: 72, y: 500 },
    ];
    const { fields, issues, built } = await scan([{ lines }], [anchor("a", { anchor_text: "sign here" }), anchor("b", { anchor_text: "SIGN  HERE" }), anchor("c", { anchor_text: "sign here", occurrence: 2 })], false);
    expect(issues).toEqual([]);
    const first = expectedRect(built.font, built.drawn[0]!, "Sign here", 0, 9);
    near(fields[0]!.anchor_match, first);
    near(fields[1]!.anchor_match, first);
    near(fields[2]!.anchor_match, expectedRect(built.font, built.drawn[1]!, "Sign here", 0, 9));
  });

  it("counts overlapping repeats of an anchor as a search from the end of the last match does", async () => {
    // "aaaa" holds "aa" twice without overlap (not three times)
    const { fields, issues } = await scan([{ lines: [{ text: "aaaa", x: 72, y: 700 }] }], [anchor("two", { anchor_text: "aa", occurrence: 2 }), anchor("three", { anchor_text: "aa", occurrence: 3 })], false);
    expect(fields.map((f) => f.name)).toEqual(["two"]);
    expect(issues).toEqual([expect.objectContaining({ code: "anchor_not_found", message: 'Anchor not found: occurrence 3 of "aa" requested, but it occurs 2 time(s)' })]);
  });

  it("matches an anchor split across text items next to a tag on the same page, and never inside the tag", async () => {
    const size = 12;
    const { fields, issues, tags, built } = await scan(
      [
        {
          lines: [
            { text: "Buyer {{buyer_sig;type=signature;role=buyer}}", x: 72, y: 700, size },
            { text: "Sign", x: 72, y: 600, size },
            { text: "ature of buyer", x: 72 + 24.012, y: 600, size },
          ],
        },
      ],
      [anchor("a", { anchor_text: "signature of buyer" }), anchor("inside", { anchor_text: "buyer_sig" })],
      true,
    );
    expect(tags.map((t) => t.raw)).toEqual(["{{buyer_sig;type=signature;role=buyer}}"]);
    const first = expectedRect(built.font, built.drawn[1]!, "Sign", 0, 4);
    const second = expectedRect(built.font, built.drawn[2]!, "ature of buyer", 0, 14);
    near(fields[0]!.anchor_match, { x: first.x, y: first.y, w: second.x + second.w - first.x, h: first.h });
    expect(issues).toEqual([expect.objectContaining({ code: "anchor_not_found", path: ["fields", 1, "placement", "anchor_text"] })]);
  });

  it("folds case beyond ASCII character by character", async () => {
    const text = "Signature de l'ACHETEUR: CAFÉ";
    const { fields, issues, built } = await scan([{ lines: [{ text, x: 72, y: 700 }] }], [anchor("e", { anchor_text: "acheteur: café" })], false);
    expect(issues).toEqual([]);
    near(fields[0]!.anchor_match, expectedRect(built.font, built.drawn[0]!, text, 15, 29));
  });

  it("finds 20 anchors spread over 40 pages, the last on the last page", async () => {
    const pages: PageSpec[] = Array.from({ length: 40 }, (_, p) => ({ lines: [{ text: `Page ${p + 1} of the contract`, x: 72, y: 700 }, ...(p % 2 ? [{ text: `Initials of party ${String((p + 1) / 2).padStart(2, "0")}`, x: 400, y: 60 }] : [])] }));
    const { fields, issues } = await scan(
      pages,
      Array.from({ length: 20 }, (_, i) => anchor(`i${i + 1}`, { anchor_text: `initials of party ${String(i + 1).padStart(2, "0")}`, offset_y: -0.03 })),
      true,
    );
    expect(issues).toEqual([]);
    expect(fields.map((f) => f.anchor_match!.page)).toEqual(Array.from({ length: 20 }, (_, i) => 2 * (i + 1)));
  });
});
