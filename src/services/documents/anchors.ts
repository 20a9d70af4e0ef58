import type { Area, PageText } from "./text-layer";

export type AnchorQuery = { text: string; occurrence: number; page?: number };
export type AnchorResult = { found: true; match: Area } | { found: false; matches: number };

/** Case-insensitive, whitespace-normalized form of an anchor, comparable with `PageText.lower`. */
export function normalizeAnchor(text: string): string {
  let out = "";
  for (const c of text.trim().replace(/\s+/g, " ")) {
    const l = c.toLowerCase();
    out += l.length === c.length ? l : c;
  }
  return out;
}

/**
 * Resolves many anchors in one pass over the pages, in document order: each query counts its
 * (non-overlapping) matches page by page until it reaches its occurrence, so pages can be read one
 * at a time and dropped.
 */
export class AnchorSearch {
  private readonly needles: string[];
  private readonly seen: number[];
  private readonly results: (Area | null)[];

  constructor(private readonly queries: AnchorQuery[]) {
    this.needles = queries.map((q) => normalizeAnchor(q.text));
    this.seen = queries.map(() => 0);
    this.results = queries.map(() => null);
  }

  /** Pages worth reading: every page, unless every query names its page. */
  pages(pageCount: number): number[] {
    if (this.queries.some((q) => q.page === undefined)) return Array.from({ length: pageCount }, (_, i) => i + 1);
    return [...new Set(this.queries.map((q) => q.page!))].filter((p) => p <= pageCount).sort((a, b) => a - b);
  }

  get done(): boolean {
    return this.results.every((r) => r !== null);
  }

  visit(page: PageText): void {
    this.queries.forEach((q, i) => {
      if (this.results[i] || (q.page !== undefined && q.page !== page.page)) return;
      const needle = this.needles[i]!;
      for (let at = page.lower.indexOf(needle); at !== -1; at = page.lower.indexOf(needle, at + needle.length)) {
        this.seen[i]! += 1;
        if (this.seen[i] === q.occurrence) {
          this.results[i] = page.rect(at, at + needle.length);
          return;
        }
      }
    });
  }

  result(i: number): AnchorResult {
    const match = this.results[i];
    return match ? { found: true, match } : { found: false, matches: this.seen[i]! };
  }
}
