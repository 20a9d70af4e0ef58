import { PDFDocument } from "pdf-lib";
import { apiIssue } from "../../lib/validation";
import { ApiError, unprocessable } from "../../lib/errors";
import { newDocumentKey, putDocument, type StoredDocument } from "../documents/ingest-pdf";
import { pageSizesOf } from "../documents/repository";
import type { PageSize } from "../../pdf";
import { listTemplateFields, templateDb, type TemplateRow } from "../templates/repository";
import type { ResolvedField } from "../templates/schema";
import type { OrgContext } from "../../lib/context";

/** pdf-lib holds every source and the result at once: the merge is bounded well inside 128 MB. */
export const MAX_MERGE_BYTES = 32 * 1024 * 1024;

/**
 * Merges the templates' PDFs in order (pdf-lib copyPages keeps each page's size, rotation and boxes)
 * and carries their fields over with page numbers offset. Fields of the same name, type and role are
 * one field with the areas of all of them (one value shown wherever it appears, as prefill by name
 * expects); a name that means something else in a later template gets " (n)" appended. Selects join
 * only with the same options; radios never join, since a radio's areas are its options, one each.
 */
export async function mergeTemplates(ctx: OrgContext, input: { templates: TemplateRow[] }): Promise<{ document: StoredDocument; fields: ResolvedField[] }> {
  const { env, orgId } = ctx;
  const { templates } = input;
  const total = templates.reduce((n, t) => n + (t.document_size_bytes ?? 0), 0);
  if (total > MAX_MERGE_BYTES) {
    const message = `The templates total ${(total / 1048576).toFixed(1)} MB; at most ${MAX_MERGE_BYTES / 1048576} MB of PDFs can be merged`;
    throw unprocessable(message, [apiIssue(["template_ids"], `templates of at most ${MAX_MERGE_BYTES} bytes of PDF in all`, `${total} bytes`, message, "too_big")]);
  }
  const merged = await PDFDocument.create();
  const fields: ResolvedField[] = [];
  // copyPages keeps each page's boxes and rotation, so the merge's page sizes are its sources' in order (null if any source has none recorded)
  let pageSizes: PageSize[] | null = [];
  let offset = 0;
  for (const [k, template] of templates.entries()) {
    const object = await env.DOCS.get(template.document_key!);
    if (!object) throw new ApiError(502, `The PDF of template ${template.id} could not be fetched from storage`);
    const source = await PDFDocument.load(new Uint8Array(await object.arrayBuffer()), { ignoreEncryption: true, updateMetadata: false });
    for (const page of await merged.copyPages(source, source.getPageIndices())) merged.addPage(page);
    for (const field of await listTemplateFields(templateDb(ctx, template.id), template.id)) {
      const moved = { ...field, areas: field.areas.map((a) => ({ ...a, page: a.page + offset })), ...(field.anchor_match ? { anchor_match: { ...field.anchor_match, page: field.anchor_match.page + offset } } : {}) };
      const same = fields.find((f) => f.name === field.name);
      if (same && sameMeaning(same, field)) same.areas.push(...moved.areas);
      else fields.push(same ? { ...moved, name: freeName(fields, field.name, k + 1) } : moved);
    }
    offset += source.getPageCount();
    const sizes = pageSizesOf(template.page_sizes);
    pageSizes = pageSizes && sizes?.length === source.getPageCount() ? [...pageSizes, ...sizes] : null;
  }
  const bytes = await merged.save();
  const key = newDocumentKey(orgId);
  const stored = await putDocument(env, key, bytes);
  return { document: { key, ...stored, pageCount: offset, pageSizes }, fields };
}

function sameMeaning(a: ResolvedField, b: ResolvedField): boolean {
  if (a.type !== b.type || a.role !== b.role || a.type === "radio") return false;
  return JSON.stringify(a.options) === JSON.stringify(b.options);
}

/** `name (n)` for the n-th template, or the next free number if a field already has that name. */
function freeName(fields: ResolvedField[], name: string, n: number): string {
  const taken = new Set(fields.map((f) => f.name));
  while (taken.has(`${name} (${n})`)) n++;
  return `${name} (${n})`;
}
