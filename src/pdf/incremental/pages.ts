import { PDFName, PDFPage, PDFPageLeaf, PDFPageTree, PDFRef, type PDFDocument } from "pdf-lib";

type PageCache = { pageMap: Map<PDFPageLeaf, PDFPage>; pageCache: { invalidate(): void }; pageCount?: number };

function pageOf(doc: PDFDocument, leaf: PDFPageLeaf, ref: PDFRef): PDFPage {
  const { pageMap } = doc as unknown as PageCache;
  let page = pageMap.get(leaf);
  if (!page) pageMap.set(leaf, (page = PDFPage.of(leaf, ref, doc)));
  return page;
}

/** The number of pages, from the page tree root's /Count (no page is read). */
export function pageCount(doc: PDFDocument): number {
  const root = doc.catalog.Pages();
  return root instanceof PDFPageTree ? root.Count().asNumber() : doc.getPageCount();
}

/**
 * The page at `index` (0-based) or undefined, reading only the page-tree nodes on its path (in a flat
 * tree, the one leaf): pdf-lib's getPages() reads every page dictionary, which for a long document
 * costs more than the page's own work. Falls back to that walk for a tree it cannot navigate.
 */
export function pageAt(doc: PDFDocument, index: number): PDFPage | undefined {
  const context = doc.context;
  let node: unknown = doc.catalog.Pages();
  let remaining = index;
  for (let depth = 0; depth < 64 && node instanceof PDFPageTree && remaining >= 0; depth++) {
    const kids = node.Kids();
    if (node.Count().asNumber() === kids.size() && remaining < kids.size()) {
      // As many pages as kids: when the kid at the index is a page, it is the one.
      const ref = kids.get(remaining);
      const kid = context.lookup(ref);
      if (kid instanceof PDFPageLeaf && ref instanceof PDFRef) return pageOf(doc, kid, ref);
    }
    let next: PDFPageTree | undefined;
    for (let i = 0; i < kids.size() && !next; i++) {
      const ref = kids.get(i);
      const kid = context.lookup(ref);
      if (kid instanceof PDFPageTree) {
        const count = kid.Count().asNumber();
        if (remaining < count) next = kid;
        else remaining -= count;
      } else if (kid instanceof PDFPageLeaf) {
        if (remaining === 0 && ref instanceof PDFRef) return pageOf(doc, kid, ref);
        remaining -= 1;
      }
    }
    if (!next) break;
    node = next;
  }
  return doc.getPages()[index];
}

/** Appends a page of `size` at the end of the document: a new kid of the page tree's root (no page is read). */
export function appendPage(doc: PDFDocument, size: [number, number]): PDFPage {
  const root = doc.catalog.Pages();
  const rootRef = doc.catalog.get(PDFName.of("Pages"));
  if (!(root instanceof PDFPageTree) || !(rootRef instanceof PDFRef)) return doc.addPage(size);
  const page = PDFPage.create(doc);
  page.setSize(...size);
  root.pushLeafNode(page.ref);
  page.node.setParent(rootRef);
  const cache = doc as unknown as PageCache;
  cache.pageMap.set(page.node, page);
  cache.pageCache.invalidate();
  cache.pageCount = undefined;
  return page;
}
