import type { Env } from "../../env";
import { sha256Hex } from "../../lib/crypto";
import { unprocessable } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { checkUpload, closePdf, openPdf, readPageSizes, stripTags, type PageSize, type TagToStrip } from "../../pdf";
import type { ApiIssue } from "../../lib/validation";
import type { ResolvedField, TemplateFieldInput } from "./schema";
import { checkFieldRules, placementFailed, resolveFields, scanDocument, tagFields } from "./place-fields";
import type { OrgContext } from "../../lib/context";

type Path = (string | number)[];

/**
 * A PDF stored in R2 (`DOCS`), as recorded on templates and envelope documents. `pageSizes` (each page's
 * displayed size) lets the signing page lay out before its PDF viewer loads; null where not recorded
 * (documents stored before it was), and the page then waits for the viewer.
 */
export type StoredDocument = { key: string; sha256: string; sizeBytes: number; pageCount: number; pageSizes: PageSize[] | null };

export const newDocumentKey = (orgId: string) => `documents/${orgId}/${newId("document")}.pdf`;

/** Writes a PDF to R2; R2 checks the SHA-256 on arrival, so the stored hash is the stored bytes' hash. */
export async function putDocument(env: Env, key: string, bytes: Uint8Array): Promise<{ sha256: string; sizeBytes: number }> {
  const sha256 = await sha256Hex(bytes);
  await env.DOCS.put(key, bytes, { httpMetadata: { contentType: "application/pdf" }, sha256 });
  return { sha256, sizeBytes: bytes.byteLength };
}

/** Best-effort removal of objects written for a request that then failed; an orphan is harmless. */
export async function discardDocuments(env: Env, keys: string[]): Promise<void> {
  await Promise.all(keys.map((k) => env.DOCS.delete(k).catch(() => undefined)));
}

/**
 * Takes an uploaded PDF from bytes to a stored document with its fields: checks the bytes are a PDF
 * (415), stores it, reads the text layer once for embedded tags and anchors, and resolves the fields
 * (422 with every problem). If the PDF carries tags, they are stripped into a new PDF that replaces
 * the upload in R2, and that PDF is read again to prove no tag is left in its text layer.
 *
 * Memory: the bytes are stored first and then handed to pdf.js, which takes the buffer over, so an
 * untagged upload is held once. A tagged one is also copied back out of pdf.js and rewritten by
 * pdf-lib, which holds it about three times over; tagged documents are text, and small.
 */
export async function ingestPdf(
  ctx: OrgContext,
  input: { bytes: Uint8Array; fields: TemplateFieldInput[]; path: Path; tagPath: Path },
): Promise<StoredDocument & { fields: ResolvedField[] }> {
  const { env } = ctx;
  // Before anything is stored or parsed: not a PDF (415), or a decompression bomb (413), with nothing written.
  await checkUpload(input.bytes);
  const uploadKey = newDocumentKey(ctx.orgId);
  const upload = await putDocument(env, uploadKey, input.bytes);
  const written = [uploadKey];
  try {
    const pdf = await openPdf(input.bytes);
    let tagged: { original: Uint8Array; tags: Map<number, TagToStrip[]> } | null = null;
    let pageCount: number;
    let pageSizes: PageSize[];
    let fields: ResolvedField[];
    try {
      const scan = await scanDocument(pdf, { tags: true, fields: input.fields });
      pageCount = scan.pageCount;
      const fromTags = tagFields(scan.tags, input.tagPath);
      const requested = resolveFields(input.fields, scan, input.path);
      fields = [...fromTags.fields, ...requested.fields];
      const issues: ApiIssue[] = [
        ...fromTags.issues,
        ...requested.issues,
        ...checkFieldRules(
          [
            ...fromTags.fields.map((field) => ({ field, path: [...input.tagPath, field.name] })),
            ...requested.located,
          ],
          new Set(),
        ),
      ];
      if (issues.length) placementFailed(issues);
      // stripping tags edits text only: the sizes read here are the stored document's
      pageSizes = await readPageSizes(pdf);
      if (scan.tags.length) {
        const tags = new Map<number, TagToStrip[]>();
        for (const t of scan.tags) tags.set(t.page, [...(tags.get(t.page) ?? []), { key: t.raw.replace(/\s+/g, ""), rect: t.userRect }]);
        tagged = { original: await pdf.getData(), tags };
      }
    } finally {
      await closePdf(pdf);
    }
    if (!tagged) return { key: uploadKey, ...upload, pageCount, pageSizes, fields };

    const stripped = await stripTags(tagged.original, tagged.tags);
    if (stripped.missed.length) throw tagsLeft(stripped.missed, input.tagPath);
    const key = newDocumentKey(ctx.orgId);
    written.push(key);
    const stored = await putDocument(env, key, stripped.bytes);
    const check = await openPdf(stripped.bytes);
    try {
      const left = (await scanDocument(check, { tags: true, fields: [] })).tags;
      if (left.length) throw tagsLeft(left.map((t) => ({ page: t.page, key: t.raw })), input.tagPath);
    } finally {
      await closePdf(check);
    }
    await discardDocuments(env, [uploadKey]);
    return { key, ...stored, pageCount, pageSizes, fields };
  } catch (err) {
    await discardDocuments(env, written);
    throw err;
  }
}

function tagsLeft(tags: { page: number; key: string }[], path: Path) {
  return unprocessable(
    "Embedded tags could not be removed from the PDF",
    tags.map((t) => ({
      code: "tag_not_removable",
      expected: "a tag drawn in the page content with a simple font, or a Type0 Identity-H font with a ToUnicode map",
      received: t.key,
      path,
      message: `tag ${t.key} on page ${t.page} could not be removed (text inside a form XObject, or a font whose encoding cannot be edited); place this field with fields_json instead`,
    })),
  );
}
