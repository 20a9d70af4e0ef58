// Anchor-resolution benchmark, bundled by scripts/bench.mjs with esbuild and run in Node: the resolver
// is the Worker's own code (pdf-lib + unpdf's pdf.js), which runs unchanged outside workerd.
//   node <bundle> memory <file.pdf>   prints { peak_rss_rise_mb, ms } for one open + full scan
import { readFileSync } from "node:fs";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { extractText, getDocumentProxy } from "unpdf";
import { closePdf, openPdf } from "../src/pdf/open-pdf";
import { resolveFields, scanDocument } from "../src/services/documents/place-fields";
import type { TemplateFieldInput } from "../src/services/templates/schema";

export const ANCHORS = 20;
const WORDS = "the buyer agrees to pay the amount financed together with finance charges according to the payment schedule below and any late fees".split(" ");

/** A contract-like PDF: Letter pages of 45 lines; the 20 anchors "Initials of party NN" spread evenly, the last on the last page. */
export async function contractPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const every = Math.max(1, Math.floor(pages / ANCHORS));
  for (let p = 1; p <= pages; p++) {
    const page = doc.addPage([612, 792]);
    for (let line = 0; line < 45; line++) {
      const text = Array.from({ length: 16 }, (_, w) => WORDS[(p * 7 + line * 3 + w) % WORDS.length]).join(" ");
      page.drawText(text, { x: 54, y: 750 - line * 15, size: 9, font });
    }
    const k = p / every;
    if (Number.isInteger(k) && k >= 1 && k <= ANCHORS) page.drawText(`Initials of party ${String(k).padStart(2, "0")}`, { x: 400, y: 60, size: 10, font });
  }
  return doc.save();
}

export const anchorFields = (): TemplateFieldInput[] =>
  Array.from({ length: ANCHORS }, (_, i) => ({
    name: `initials_${i + 1}`,
    type: "initials",
    role: "buyer",
    required: true,
    readonly: false,
    placement: { mode: "anchor", anchor_text: `initials of party ${String(i + 1).padStart(2, "0")}`, occurrence: 1, offset_x: 0, offset_y: -0.03, w: 0.1, h: 0.03 },
  }));

/** unpdf's bare text extraction of every page, the floor any text-layer search pays. */
export async function bareExtraction(bytes: Uint8Array): Promise<number> {
  const started = performance.now();
  const pdf = await getDocumentProxy(bytes.slice());
  await extractText(pdf, { mergePages: false });
  await pdf.loadingTask.destroy();
  return performance.now() - started;
}

/**
 * The resolver's own extraction pass with nothing done on it: pdf.js's text content of every page,
 * read one page at a time as the scan reads it (same open options, same cache releases). The floor
 * of a one-page-at-a-time scan; unpdf's `extractText` reads all pages at once instead.
 */
export async function pageByPageExtraction(bytes: Uint8Array): Promise<number> {
  const started = performance.now();
  const pdf = await openPdf(bytes.slice());
  try {
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      await page.getTextContent();
      page.cleanup();
      if (n % 50 === 0) await pdf.cleanup();
    }
  } finally {
    await closePdf(pdf);
  }
  return performance.now() - started;
}

/** The upload path's read: open, scan every page for tags and the 20 anchors, resolve the fields. */
export async function resolveAnchors(bytes: Uint8Array, tags = true, copy = true): Promise<{ ms: number; placed: number }> {
  const started = performance.now();
  const pdf = await openPdf(copy ? bytes.slice() : bytes); // pdf.js takes the buffer over, as in the Worker
  try {
    const fields = anchorFields();
    const scan = await scanDocument(pdf, { tags, fields });
    const { fields: placed, issues } = resolveFields(fields, scan, []);
    if (issues.length) throw new Error(`anchors not placed: ${issues[0]!.message}`);
    return { ms: performance.now() - started, placed: placed.length };
  } finally {
    await closePdf(pdf);
  }
}

/**
 * Peak live memory of one open + full scan in this (fresh, --expose-gc) process, the PDF's bytes
 * included (the Worker holds them too): a full GC, then V8 heap in use plus external memory
 * (ArrayBuffers), read as the scan starts and every 250 ms. A warm-up on a small PDF first keeps code
 * loading out of it.
 */
async function peakMemory(file: string) {
  await resolveAnchors(await contractPdf(ANCHORS));
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --expose-gc");
  const live = () => {
    gc();
    const u = process.memoryUsage();
    return u.heapUsed + u.external;
  };
  const before = live();
  const bytes = new Uint8Array(readFileSync(file));
  const size = bytes.length;
  const work = resolveAnchors(bytes, true, false).catch(() => ({ ms: NaN })); // a PDF without the anchors still measures the read
  let peak = live();
  const timer = setInterval(() => (peak = Math.max(peak, live())), 250);
  const { ms } = await work;
  clearInterval(timer);
  return { peak_mb: (peak - before) / 1048576, bytes_mb: size / 1048576, ms };
}

if (process.argv[2] === "memory") console.log(JSON.stringify(await peakMemory(process.argv[3]!)));
