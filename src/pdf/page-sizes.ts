import type { PdfDocument } from "./open-pdf";

/** A page's displayed size in PDF points: its CropBox with /Rotate applied (and /UserUnit), as pdf.js shows it. */
export type PageSize = { width: number; height: number };

const CLEANUP_EVERY = 50;
const round = (n: number) => Math.round(n * 100) / 100;

/**
 * Every page's displayed size, in order: the box field areas are fractions of, and the one a viewer
 * lays the page out in. Read with pdf.js (the reader that also places anchors and tags, and that the
 * signing page paints with), so the sizes agree with both; only page dictionaries are read.
 */
export async function readPageSizes(pdf: PdfDocument): Promise<PageSize[]> {
  const sizes: PageSize[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const { width, height } = (await pdf.getPage(n)).getViewport({ scale: 1 });
    sizes.push({ width: round(width), height: round(height) });
    if (n % CLEANUP_EVERY === 0) await pdf.cleanup();
  }
  return sizes;
}
