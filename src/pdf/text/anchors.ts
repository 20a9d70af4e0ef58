import { AnchorAutomaton } from "./anchor-automaton";
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
 * at a time and dropped. On each page, one walk of the text finds every anchor (Aho-Corasick); a
 * query's matches are then taken greedily from the left, each starting past the end of the one it
 * counted before, as repeated `indexOf` from the end of the last match would find them.
 */
export class AnchorSearch {
  /** the distinct normalized anchors, and for each the queries that search it */
  private readonly needles: string[] = [];
  private readonly queriesOf: number[][] = [];
  private readonly automaton: AnchorAutomaton | null;
  private readonly seen: number[];
  private readonly results: (Area | null)[];
  private unresolved: number;
  /** per needle: where its last counted match on the current page ends */
  private readonly lastEnd: Int32Array;

  constructor(private readonly queries: AnchorQuery[]) {
    const index = new Map<string, number>();
    queries.forEach((q, i) => {
      const needle = normalizeAnchor(q.text);
      let n = index.get(needle);
      if (n === undefined) {
        index.set(needle, (n = this.needles.length));
        this.needles.push(needle);
        this.queriesOf.push([]);
      }
      this.queriesOf[n]!.push(i);
    });
    this.automaton = queries.length ? new AnchorAutomaton(this.needles) : null;
    this.seen = queries.map(() => 0);
    this.results = queries.map(() => null);
    this.unresolved = queries.length;
    this.lastEnd = new Int32Array(this.needles.length);
  }

  /** Pages worth reading: every page, unless every query names its page. */
  pages(pageCount: number): number[] {
    if (this.queries.some((q) => q.page === undefined)) return Array.from({ length: pageCount }, (_, i) => i + 1);
    return [...new Set(this.queries.map((q) => q.page!))].filter((p) => p <= pageCount).sort((a, b) => a - b);
  }

  get done(): boolean {
    return this.unresolved === 0;
  }

  visit(page: PageText): void {
    if (!this.automaton) return;
    const { queries, results, seen, queriesOf, lastEnd } = this;
    const here = (q: number) => results[q] === null && (queries[q]!.page === undefined || queries[q]!.page === page.page);
    let open = 0;
    for (let q = 0; q < queries.length; q++) if (here(q)) open++;
    if (open === 0) return;
    lastEnd.fill(0);
    this.automaton.scan(page.lower, (needle, start) => {
      if (start < lastEnd[needle]!) return false; // overlaps the match counted before
      const end = start + this.needles[needle]!.length;
      lastEnd[needle] = end;
      for (const q of queriesOf[needle]!) {
        if (!here(q)) continue;
        seen[q]! += 1;
        if (seen[q] === queries[q]!.occurrence) {
          results[q] = page.rect(start, end);
          this.unresolved--;
          open--;
        }
      }
      return open === 0;
    });
  }

  result(i: number): AnchorResult {
    const match = this.results[i];
    return match ? { found: true, match } : { found: false, matches: this.seen[i]! };
  }
}
