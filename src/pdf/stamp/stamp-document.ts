import { degrees, PDFDocument, StandardFonts, rgb, type PDFFont, type PDFImage, type PDFPage } from "pdf-lib";
import { apiIssue } from "../../lib/validation";
import { type ErrorCodesByStatus, unprocessable } from "../../lib/errors";
import type { Area } from "../open-pdf";
import { IncrementalPdf } from "../incremental/incremental-pdf";
import { pageAt } from "../incremental/pages";
import { joinParts } from "../incremental/parts";
import type { Stamp } from "./types";
import { signaturePngProblem } from "../../lib/signature-png";
import { sanitize } from "./certificate-page";

/** A dot's radius as a share of its area's smaller side: clearly filled, inside the drawn circle of a form. */
export const DOT_RADIUS = 0.35;

/**
 * A radio's stamp. Placed one area per option (in order, DocuSign's radio group), the chosen option's
 * area gets a filled circle and the others stay blank; placed in one area, the chosen text is written.
 */
export function radioStamp(areas: Area[], options: string[] | null, chosen: string): Stamp {
  const index = options && areas.length > 1 && areas.length === options.length ? options.indexOf(chosen) : -1;
  return index >= 0 ? { areas: [areas[index]!], value: { kind: "dot" } } : { areas, value: { kind: "text", text: chosen } };
}

/**
 * Maps a point given as fractions of the *displayed* page (top-left origin, after /Rotate, inside the
 * CropBox — the frame the template code resolves areas in, from pdf.js's viewport) to the page's own
 * user space, where pdf-lib draws.
 */
export function displayedToUser(page: PDFPage, fx: number, fy: number): { x: number; y: number; rotation: number } {
  const box = page.getCropBox();
  const rotation = (((page.getRotation().angle % 360) + 360) % 360) as 0 | 90 | 180 | 270;
  const [dw, dh] = rotation % 180 === 0 ? [box.width, box.height] : [box.height, box.width];
  const dx = fx * dw;
  const dy = fy * dh;
  switch (rotation) {
    case 90:
      return { x: box.x + dy, y: box.y + dx, rotation };
    case 180:
      return { x: box.x + box.width - dx, y: box.y + dy, rotation };
    case 270:
      return { x: box.x + box.width - dy, y: box.y + box.height - dx, rotation };
    default:
      return { x: box.x + dx, y: box.y + box.height - dy, rotation: 0 };
  }
}

/** The displayed size of an area in points. */
function areaSize(page: PDFPage, a: Area): { w: number; h: number } {
  const box = page.getCropBox();
  const rotated = page.getRotation().angle % 180 !== 0;
  const [dw, dh] = rotated ? [box.height, box.width] : [box.width, box.height];
  return { w: a.w * dw, h: a.h * dh };
}

/**
 * Draws every value at its field's areas, as an incremental update appended to `original` (which
 * stays an unchanged prefix of the result). Each drawing starts at the area's displayed bottom-left
 * corner and is rotated with the page, so it reads upright in the displayed page whatever /Rotate is.
 * Text is sized to the area's height (at most 14 pt) and shrunk to fit its width; a dot is centered.
 */
export async function stampDocument(original: Uint8Array, stamps: Stamp[]): Promise<Uint8Array> {
  const pdf = await IncrementalPdf.open([original]);
  await stampPages(pdf.doc, stamps);
  await pdf.commit();
  return joinParts(pdf.parts);
}

/** Draws the stamps on `doc`'s pages (completion writes them as the first incremental update). */
export async function stampPages(doc: PDFDocument, stamps: Stamp[]): Promise<void> {
  const fonts = { plain: await doc.embedFont(StandardFonts.Helvetica), script: await doc.embedFont(StandardFonts.TimesRomanItalic) };
  const images = new Map<Uint8Array, PDFImage>();
  for (const stamp of stamps) {
    for (const area of stamp.areas) {
      const page = area.page >= 1 ? pageAt(doc, area.page - 1) : undefined;
      if (!page) continue;
      const { w, h } = areaSize(page, area);
      const origin = displayedToUser(page, area.x, area.y + area.h);
      const v = stamp.value;
      if (v.kind === "dot") {
        const center = displayedToUser(page, area.x + area.w / 2, area.y + area.h / 2);
        page.drawCircle({ x: center.x, y: center.y, size: DOT_RADIUS * Math.min(w, h), color: rgb(0, 0, 0.45) });
      } else if (v.kind === "image") {
        let image = images.get(v.png);
        if (!image) images.set(v.png, (image = await doc.embedPng(decodablePng(v.png))));
        const scale = Math.min(w / image.width, h / image.height);
        page.drawImage(image, { x: origin.x, y: origin.y, width: image.width * scale, height: image.height * scale, rotate: degrees(origin.rotation) });
      } else {
        const text = v.kind === "check" ? "X" : sanitize(v.text);
        const font: PDFFont = v.kind === "text" && v.script ? fonts.script : fonts.plain;
        const size = fitSize(font, text, w, h);
        // The baseline sits above the area's bottom edge by the font's descent, so nothing spills out.
        const descent = font.heightAtSize(size, { descender: true }) - font.heightAtSize(size, { descender: false });
        const base = displayedToUser(page, area.x, area.y + area.h - descent / areaDisplayedHeight(page));
        page.drawText(text, { x: base.x, y: base.y, size, font, color: rgb(0, 0, 0.45), rotate: degrees(base.rotation) });
      }
    }
  }
}

/**
 * Submit checks a drawn signature before storing it; this checks again right before pdf-lib decodes it
 * to full RGBA, whatever path the bytes came by (an image stored before the limits existed), and refuses
 * the completion rather than decode a memory bomb.
 */
function decodablePng(png: Uint8Array): Uint8Array {
  const problem = signaturePngProblem(png);
  if (problem) {
    const message = `A drawn signature in this envelope cannot be stamped: ${problem}`;
    throw unprocessable(message, [apiIssue(["signature_image"], "a PNG within the signature image limits", problem, message, "signature_image_refused")], "signature_image_refused");
  }
  return png;
}

function areaDisplayedHeight(page: PDFPage): number {
  const box = page.getCropBox();
  return page.getRotation().angle % 180 === 0 ? box.height : box.width;
}

function fitSize(font: PDFFont, text: string, w: number, h: number): number {
  let size = Math.min(14, h * 0.8);
  const width = font.widthOfTextAtSize(text, size);
  if (width > w && width > 0) size = (size * w) / width;
  return Math.max(4, size);
}

export const STAMP_ERRORS: ErrorCodesByStatus = { 422: ["signature_image_refused"] };
