import type * as PdfView from "./pdf-view";

// The PDF viewer is pdf.js (~130 KB compressed) and its worker (~350 KB compressed): most of what a
// phone downloads. It loads apart from the page's own script (its own chunk), and both start at once,
// beside the first API call, so a slow network carries them while the page reads its state instead
// of after (scripts/bench-page.mjs measures it).
const WORKER = "/static/vendor/pdfjs/pdf.worker.min.mjs";

let viewer: Promise<typeof PdfView> | undefined;

/** The viewer module, its worker already started; the first call starts both downloads. */
export function loadPdfViewer(): Promise<typeof PdfView> {
  if (!viewer) {
    const worker = new Worker(WORKER, { type: "module" });
    viewer = import("./pdf-view").then((mod) => {
      mod.useWorker(worker);
      return mod;
    });
    // a page that never shows a document (a closed link) must not report the failed download
    viewer.catch(() => undefined);
  }
  return viewer;
}
