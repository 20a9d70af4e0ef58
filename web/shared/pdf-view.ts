import { getDocument, GlobalWorkerOptions, type PDFDocumentProxy } from "pdfjs-dist";
import { h } from "./dom";

// pdf.js and its data files are served by the Worker (npm run assets copies them), never a CDN.
const PDFJS = "/static/vendor/pdfjs";
GlobalWorkerOptions.workerSrc = `${PDFJS}/pdf.worker.min.mjs`;

/** pdf.js talks to this worker (started early by ./pdf-loader.ts) instead of starting its own. */
export function useWorker(worker: Worker) {
  GlobalWorkerOptions.workerPort ??= worker;
}

const EAGER_PAGES = 20;

export type RenderedPage = { number: number; wrapper: HTMLElement; width: number; height: number };

/**
 * Renders every page of the PDF into `container`, each as a canvas inside a wrapper whose aspect
 * ratio is the page's displayed size (CropBox and rotation applied, as the field areas are). Field
 * overlays are positioned inside the wrappers in fractions of the page, so they stay on their spot at
 * any width (phone or desktop). Pages are laid out at once; the first EAGER_PAGES are painted in
 * order right away, later ones as they scroll into view (a 300-page loan file stays light).
 */
export async function renderPdf(container: HTMLElement, bytes: Uint8Array, describe = "Page"): Promise<RenderedPage[]> {
  const pdf: PDFDocumentProxy = await getDocument({
    data: bytes,
    standardFontDataUrl: `${PDFJS}/standard_fonts/`,
    cMapUrl: `${PDFJS}/cmaps/`,
    cMapPacked: true,
    wasmUrl: `${PDFJS}/wasm/`,
    iccUrl: `${PDFJS}/iccs/`,
  }).promise;
  const pages: RenderedPage[] = [];
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
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const base = page.getViewport({ scale: 1 });
    const canvas = h("canvas", { "aria-hidden": "true" });
    const wrapper = h("div", { class: "page", role: "region", "aria-label": `${describe} ${n} of ${pdf.numPages}`, "data-page": n }, canvas);
    wrapper.style.aspectRatio = `${base.width} / ${base.height}`;
    container.append(wrapper);
    pages.push({ number: n, wrapper, width: base.width, height: base.height });
    const paint = async () => {
      // device pixels for the wrapper's width, capped so a big screen does not allocate huge canvases
      const scale = Math.min(4, (Math.max(wrapper.clientWidth, 320) * Math.min(window.devicePixelRatio || 1, 2)) / base.width);
      const viewport = page.getViewport({ scale });
      canvas.width = Math.floor(viewport.width);
      canvas.height = Math.floor(viewport.height);
      await page.render({ canvas, viewport }).promise;
      wrapper.classList.add("painted");
    };
    if (n <= EAGER_PAGES) eager.push(paint);
    else {
      painters.set(wrapper, paint);
      observer.observe(wrapper);
    }
  }
  void (async () => {
    for (const paint of eager) await paint();
  })();
  return pages;
}
