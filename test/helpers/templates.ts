import { SELF } from "cloudflare:test";
import { degrees, PDFDocument, PDFName, PDFNumber, rgb, StandardFonts, type PDFFont, type PDFPage } from "pdf-lib";
import { BASE, call, operator, type ApiResponse } from "./api";
import { interceptDb } from "./db-proxy";

export const PAGE_SIZES = { letter: [612, 792], a4: [595.28, 841.89], legal: [612, 1008] } as const;

/** Where a line of text was drawn, in the spec's Area terms for an unrotated page without offsets. */
export type Drawn = { page: number; x: number; baseline: number; width: number; size: number; pageWidth: number; pageHeight: number };

export type PageSpec = {
  size?: readonly [number, number];
  rotate?: 0 | 90 | 180 | 270;
  cropBox?: [number, number, number, number];
  mediaBox?: [number, number, number, number];
  lines?: { text: string; x: number; y: number; size?: number }[];
  /** a full-page image and no text at all (a scan) */
  image?: boolean;
};

/** A real PDF made with pdf-lib, plus where each line was drawn (user space, Helvetica). */
export async function buildPdf(pages: PageSpec[]): Promise<{ bytes: Uint8Array; font: PDFFont; drawn: Drawn[] }> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const drawn: Drawn[] = [];
  for (const [i, spec] of pages.entries()) {
    const [w, h] = spec.size ?? PAGE_SIZES.letter;
    const page = doc.addPage([w, h]);
    if (spec.rotate) page.setRotation(degrees(spec.rotate));
    if (spec.mediaBox) page.setMediaBox(...spec.mediaBox);
    if (spec.cropBox) page.setCropBox(...spec.cropBox);
    if (spec.image) await drawScan(doc, page);
    for (const line of spec.lines ?? []) {
      const size = line.size ?? 12;
      page.drawText(line.text, { x: line.x, y: line.y, size, font, color: rgb(0, 0, 0) });
      drawn.push({ page: i + 1, x: line.x, baseline: line.y, width: advance(font, line.text, size), size, pageWidth: w, pageHeight: h });
    }
  }
  return { bytes: await doc.save(), font, drawn };
}

async function drawScan(doc: PDFDocument, page: PDFPage) {
  // A tiny grey PNG stretched over the page stands in for a scanned sheet.
  const png = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABc3UBGAAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
  const image = await doc.embedPng(png);
  page.drawImage(image, { x: 0, y: 0, width: page.getWidth(), height: page.getHeight() });
}

/**
 * The advance of `text` as drawn: pdf-lib's widthOfTextAtSize adds kerning pairs, but drawText shows
 * the string without kerning, so the drawn advance is the sum of the single glyphs' widths.
 */
export const advance = (font: PDFFont, text: string, size: number) => [...text].reduce((sum, ch) => sum + font.widthOfTextAtSize(ch, size), 0);

/** Helvetica ascent/descent as pdf.js reports them for the standard font. */
export const ASCENT = 0.718;
export const DESCENT = -0.207;

/**
 * The expected Area of the text drawn at `line` from character `from` (exclusive end `to`), on an
 * unrotated page whose view starts at (0, 0): what a reader measures on the page.
 */
export function expectedRect(font: PDFFont, d: Drawn, text: string, from: number, to: number) {
  const x0 = d.x + advance(font, text.slice(0, from), d.size);
  const x1 = d.x + advance(font, text.slice(0, to), d.size);
  const top = d.baseline + ASCENT * d.size;
  const bottom = d.baseline + DESCENT * d.size;
  return { page: d.page, x: x0 / d.pageWidth, y: (d.pageHeight - top) / d.pageHeight, w: (x1 - x0) / d.pageWidth, h: (top - bottom) / d.pageHeight };
}

/** POST /partner/templates as a partner sends it: multipart with `file`, `name`, optional fields. */
export async function uploadTemplate(
  key: string | undefined,
  opts: { file?: Uint8Array | null; name?: string | null; fields?: unknown; fieldsJson?: string; externalId?: string; filename?: string; type?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const form = new FormData();
  if (opts.file !== null) form.append("file", new File([opts.file ?? (await buildPdf([{ lines: [{ text: "Contract", x: 72, y: 700 }] }])).bytes], opts.filename ?? "contract.pdf", { type: opts.type ?? "application/pdf" }));
  if (opts.name !== null) form.append("name", opts.name ?? "Retail installment contract");
  if (opts.externalId) form.append("external_id", opts.externalId);
  if (opts.fieldsJson !== undefined) form.append("fields_json", opts.fieldsJson);
  else if (opts.fields !== undefined) form.append("fields_json", JSON.stringify(opts.fields));
  return send("POST", "/partner/templates", key, form, opts.headers);
}

export async function send(method: string, path: string, key: string | undefined, body: FormData | ReadableStream | Uint8Array, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const res = await SELF.fetch(BASE + path, { method, headers: { ...(key ? { "X-API-Key": key } : {}), ...headers }, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed as any };
}

/** Absolute field helper. */
export const absolute = (name: string, areas: { page: number; x: number; y: number; w: number; h: number }[], extra: Record<string, unknown> = {}) => ({
  name,
  type: "signature",
  role: "buyer",
  placement: { mode: "absolute", areas },
  ...extra,
});

export const anchor = (name: string, placement: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name,
  type: "signature",
  role: "buyer",
  placement: { mode: "anchor", w: 0.2, h: 0.04, ...placement },
  ...extra,
});

/** A select or radio field placed at absolute `areas` (a radio: one area, or one per option in order). */
export const choice = (
  name: string,
  type: "select" | "radio",
  options: string[],
  areas: { page: number; x: number; y: number; w: number; h: number }[],
  extra: Record<string, unknown> = {},
) => absolute(name, areas, { type, options, ...extra });

export { PDFName, PDFNumber };

/**
 * A D1 binding whose statements fail when their SQL matches `failOn` (on run/first/all, or inside a
 * batch), to reach the error paths a healthy database never takes.
 */
export function failingDb(db: D1Database, failOn: RegExp): D1Database {
  return interceptDb(db, (sql) => {
    if (failOn.test(sql)) throw new Error("D1_ERROR: simulated failure");
  });
}

/** A console access token for a new user with `role` in the organization (minted by the operator). */
export async function memberToken(orgId: string, role: "admin" | "custodian" | "member" = "member"): Promise<string> {
  const user = await operator("POST", `/orgs/${orgId}/users`, { email: `${role}-${crypto.randomUUID()}@example.com`, name: role, role });
  const token = await operator("POST", `/users/${user.body.data.user_id}/access-tokens`, { org_id: orgId, ttl_seconds: 3600 });
  return token.body.data.access_token as string;
}

/** PUT /templates/:id/document as the console sends it. */
export function putTemplateDocument(bearer: string, templateId: string, file: Uint8Array) {
  const form = new FormData();
  form.append("file", new File([file], "t.pdf", { type: "application/pdf" }));
  return send("PUT", `/templates/${templateId}/document`, undefined, form, { Authorization: `Bearer ${bearer}` });
}

/** A console template with a one-line PDF, KBA or not; `lines` are drawn on the given page sizes. */
export async function consoleTemplate(bearer: string, opts: { name?: string; kba?: boolean; pages?: PageSpec[] } = {}) {
  const created = await call("POST", "/templates", { bearer, body: { name: opts.name ?? "Console template", kba_required: opts.kba ?? false } });
  if (created.status !== 201) throw new Error(`template create failed: ${JSON.stringify(created.body)}`);
  const id = created.body.data.template_id as string;
  const { bytes } = await buildPdf(opts.pages ?? [{ lines: [{ text: opts.name ?? "Console template", x: 72, y: 700 }] }]);
  const res = await putTemplateDocument(bearer, id, bytes);
  if (res.status !== 200) throw new Error(`template document failed: ${JSON.stringify(res.body)}`);
  return res.body.data as { template_id: string; provider_template_id: number; kba_required: boolean; provider_instance: string; page_count: number };
}
