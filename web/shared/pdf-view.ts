import { getDocument, GlobalWorkerOptions, type PDFDocumentProxy } from "pdfjs-dist";
import { layoutPages, type RenderedPage } from "./page-layout";

export type { RenderedPage };

// pdf.js and its data files are served by the Worker (npm run assets copies them), never a CDN.
const PDFJS = "/static/vendor/pdfjs";
GlobalWorkerOptions.workerSrc = `${PDFJS}/pdf.worker.min.mjs`;

/** pdf.js talks to this worker (started early by ./pdf-loader.ts) instead of starting its own. */
export function useWorker(worker: Worker) {
  GlobalWorkerOptions.workerPort ??= worker;
}

const EAGER_PAGES = 20;

const openDocument = (bytes: Uint8Array): Promise<PDFDocumentProxy> =>
  getDocument({
    data: bytes,
    standardFontDataUrl: `${PDFJS}/standard_fonts/`,
    cMapUrl: `${PDFJS}/cmaps/`,
    cMapPacked: true,
    wasmUrl: `${PDFJS}/wasm/`,
    iccUrl: `${PDFJS}/iccs/`,
  }).promise;

/**
 * Renders every page of the PDF into `container` (./page-layout.ts lays the pages out from the sizes
 * pdf.js reads, CropBox and rotation applied, as the field areas are), then paints them.
 */
export async function renderPdf(container: HTMLElement, bytes: Uint8Array, describe = "Page"): Promise<RenderedPage[]> {
  const pdf = await openDocument(bytes);
  const sizes = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const { width, height } = (await pdf.getPage(n)).getViewport({ scale: 1 });
    sizes.push({ width, height });
  }
  const pages = layoutPages(container, sizes, describe);
  await paintPages(pdf, pages);
  return pages;
}

/**
 * Paints the PDF into pages already laid out (from the sizes the signing state carries), whose field
 * overlays may already be in use: only the canvases change. The first EAGER_PAGES are painted in order
 * right away, later ones as they scroll into view (a 300-page loan file stays light).
 */
export async function paintPdf(pages: RenderedPage[], bytes: Uint8Array): Promise<void> {
  await paintPages(await openDocument(bytes), pages);
}

async function paintPages(pdf: PDFDocumentProxy, pages: RenderedPage[]): Promise<void> {
  const eager: (() => Promise<void>)[] = [];
  const painters = new Map<Element, () => Promise<void>>();
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const paint = entry.isIntersecting ? painters.get(entry.target) : undefined;
        if (!paint) continue;
        painters.delete(entry.target);
        observer.unobserve(entry.target);
        void paint();
      }
    },
    { rootMargin: "600px 0px" },
  );
  for (const { number, wrapper, canvas } of pages) {
    if (number > pdf.numPages) break;
    const page = await pdf.getPage(number);
    const base = page.getViewport({ scale: 1 });
    const paint = async () => {
      // device pixels for the wrapper's width, capped so a big screen does not allocate huge canvases
      const scale = Math.min(4, (Math.max(wrapper.clientWidth, 320) * Math.min(window.devicePixelRatio || 1, 2)) / base.width);
      const viewport = page.getViewport({ scale });
      canvas.width = Math.floor(viewport.width);
      canvas.height = Math.floor(viewport.height);
      await page.render({ canvas, viewport }).promise;
      wrapper.classList.add("painted");
    };
    if (number <= EAGER_PAGES) eager.push(paint);
    else {
      painters.set(wrapper, paint);
      observer.observe(wrapper);
    }
  }
  void (async () => {
    for (const paint of eager) await paint();
  })();
}
