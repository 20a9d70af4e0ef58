import { PDFDocument, StandardFonts, rgb, type PDFFont } from "pdf-lib";
import { IncrementalPdf } from "../incremental/incremental-pdf";
import { appendPage, pageCount } from "../incremental/pages";
import { joinParts } from "../incremental/parts";
import type { CertificateInput } from "./types";

const PAGE = { width: 612, height: 792, margin: 54, top: 740, bottom: 60 };

type Run = { text: string; size?: number; bold?: boolean; mono?: boolean; indent?: number };

/**
 * Appends the signing certificate (letter pages; as many as its content needs). It cannot state the
 * hash of the file it is part of, so it names the two it can: the original as sent, and the stamped
 * document (every page before this one). The stored file's own SHA-256 is recorded on the envelope's
 * `signed` document and in the vault. Every value is shown whole: a line too long for the page wraps
 * (at spaces, or anywhere in a value without spaces, such as a hash or a user agent), and a signer
 * block that would not fit at the bottom of a page starts the next one.
 */
export async function appendCertificatePage(stamped: Uint8Array, input: CertificateInput): Promise<{ bytes: Uint8Array; pageCount: number }> {
  const pdf = await IncrementalPdf.open([stamped]);
  const pageCount = await addCertificatePages(pdf.doc, input);
  await pdf.commit();
  return { bytes: joinParts(pdf.parts), pageCount };
}

/** Adds the certificate's pages at the end of `doc`; returns the document's page count. */
export async function addCertificatePages(doc: PDFDocument, input: CertificateInput): Promise<number> {
  const fonts = {
    plain: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
    mono: await doc.embedFont(StandardFonts.Courier),
  };
  const fontOf = (r: Run): PDFFont => (r.mono ? fonts.mono : r.bold ? fonts.bold : fonts.plain);
  let page = appendPage(doc, [PAGE.width, PAGE.height]);
  let y = PAGE.top;
  let pages = 1;
  const newPage = () => {
    page = appendPage(doc, [PAGE.width, PAGE.height]);
    y = PAGE.top;
    pages += 1;
    draw({ text: `Signing certificate (continued, page ${pages})`, size: 11, bold: true });
    y -= 4;
  };
  const linesOf = (r: Run): string[] => wrap(sanitize(r.text), fontOf(r), r.size ?? 9, PAGE.width - 2 * PAGE.margin - (r.indent ?? 0));
  const heightOf = (runs: Run[]) => runs.reduce((h, r) => h + linesOf(r).length * ((r.size ?? 9) + 5), 0);
  function draw(r: Run) {
    const size = r.size ?? 9;
    for (const text of linesOf(r)) {
      if (y < PAGE.bottom) newPage();
      page.drawText(text, { x: PAGE.margin + (r.indent ?? 0), y, size, font: fontOf(r), color: rgb(0, 0, 0) });
      y -= size + 5;
    }
  }
  /** Draws runs that belong together on one page when they fit on a page at all. */
  const block = (runs: Run[]) => {
    if (y - heightOf(runs) < PAGE.bottom && heightOf(runs) < PAGE.top - PAGE.bottom - 40) newPage();
    for (const r of runs) draw(r);
  };

  draw({ text: "Signing certificate", size: 16, bold: true });
  y -= 6;
  draw({ text: `Envelope: ${input.envelopeName}` });
  draw({ text: `Envelope id: ${input.envelopeId}` });
  draw({ text: `Completed at: ${input.completedAt}` });
  block([{ text: "SHA-256 of the original document:" }, { text: input.originalSha256, mono: true, indent: 12 }]);
  block([{ text: "SHA-256 of the signed document (all pages before this certificate):" }, { text: input.stampedSha256, mono: true, indent: 12 }]);
  draw({
    text: "On completion the whole file, this certificate included, is sealed with a digital signature (PAdES): a PDF viewer shows whether any byte changed since.",
  });
  y -= 8;
  draw({ text: `Signers (${input.signers.length})`, size: 12, bold: true });
  for (const s of input.signers) {
    block([
      { text: `${s.name} <${s.email}>`, bold: true },
      { text: `Role: ${s.role}   Signing order: ${s.routing_order}`, indent: 12 },
      { text: `Viewed at: ${s.viewed_at ?? "-"}   Signed at: ${s.signed_at ?? "-"}`, indent: 12 },
      { text: `Identity verification: ${s.identity_verification ?? "none"}`, indent: 12 },
      ...(s.attachments ?? []).map((line) => ({ text: `Attachment ${line}`, indent: 12 })),
      { text: `IP address: ${s.ip ?? "unknown"}`, indent: 12 },
      { text: `User agent: ${s.user_agent ?? "unknown"}`, indent: 12 },
    ]);
    y -= 4;
  }
  return pageCount(doc);
}

/**
 * Splits `text` into lines at most `width` points wide: at spaces where it can, and inside a word
 * (a hash, a user agent) only when the word alone is wider than the line.
 */
export function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const fits = (t: string) => font.widthOfTextAtSize(t, size) <= width;
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(/ +/)) {
    const candidate = current ? `${current} ${word}` : word;
    if (fits(candidate)) {
      current = candidate;
      continue;
    }
    if (current) lines.push(current);
    current = "";
    let rest = word;
    while (!fits(rest)) {
      let n = rest.length - 1;
      while (n > 1 && !fits(rest.slice(0, n))) n--;
      lines.push(rest.slice(0, n));
      rest = rest.slice(n);
    }
    current = rest;
  }
  if (current || lines.length === 0) lines.push(current);
  return lines;
}

/** The standard fonts encode WinAnsi only: anything else is replaced rather than failing the signing. */
export function sanitize(text: string): string {
  return text.replace(/[^\x20-\x7e\xa0-\xff]/g, "?");
}
