import { h } from "./dom";

/** A page's displayed size in PDF points (CropBox, rotation applied): what field areas are fractions of. */
export type PageSize = { width: number; height: number };

export type RenderedPage = { number: number; wrapper: HTMLElement; canvas: HTMLCanvasElement; width: number; height: number };

/**
 * One placeholder per page in `container`: a wrapper whose aspect ratio is the page's displayed size,
 * holding the canvas the PDF viewer paints later. Field overlays are positioned inside the wrappers in
 * fractions of the page, so they can be placed (and used) before the viewer has loaded, and stay on
 * their spot at any width. No pdf.js here: this module is part of the page's own script.
 */
export function layoutPages(container: HTMLElement, sizes: PageSize[], describe = "Page"): RenderedPage[] {
  return sizes.map((size, i) => {
    const n = i + 1;
    const canvas = h("canvas", { "aria-hidden": "true" });
    const wrapper = h("div", { class: "page", role: "region", "aria-label": `${describe} ${n} of ${sizes.length}`, "data-page": n }, canvas);
    wrapper.style.aspectRatio = `${size.width} / ${size.height}`;
    container.append(wrapper);
    return { number: n, wrapper, canvas, width: size.width, height: size.height };
  });
}
