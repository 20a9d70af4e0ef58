import { unprocessable } from "../../lib/errors";
import { AnchorSearch, readPageText, type PdfDocument } from "../../pdf";
import type { ApiIssue } from "../../lib/validation";
import { isChoiceType, type AreaInput, type ResolvedField, type TemplateFieldInput } from "./schema";
import { findTags, parseTag, type FoundTag, type TagAttributes } from "./tags";

type Path = (string | number)[];
const round = (n: number) => Math.round(n * 1e6) / 1e6;

const CLEANUP_EVERY = 50;

export type DocumentScan = { pageCount: number; tags: FoundTag[]; textChars: number; anchors: AnchorSearch };

/**
 * Reads the text layer once, page by page, for what the fields need: embedded tags (every page) and
 * anchors (every page, or only the pages the anchors name). Nothing is read when neither is wanted.
 */
export async function scanDocument(pdf: PdfDocument, opts: { tags: boolean; fields: TemplateFieldInput[] }): Promise<DocumentScan> {
  const anchors = new AnchorSearch(
    opts.fields.flatMap((f) => (f.placement.mode === "anchor" ? [{ text: f.placement.anchor_text, occurrence: f.placement.occurrence, page: f.placement.page }] : [])),
  );
  const pageCount = pdf.numPages;
  const pages = opts.tags ? Array.from({ length: pageCount }, (_, i) => i + 1) : opts.fields.some((f) => f.placement.mode === "anchor") ? anchors.pages(pageCount) : [];
  const tags: FoundTag[] = [];
  let textChars = 0;
  for (const n of pages) {
    const page = await readPageText(pdf, n);
    textChars += page.textChars;
    if (opts.tags) tags.push(...findTags(page));
    anchors.visit(page);
    if (!opts.tags && anchors.done) break;
    // pdf.js keeps every parsed page's objects; dropping them now and then keeps a long scan flat.
    if (n % CLEANUP_EVERY === 0) await pdf.cleanup();
  }
  return { pageCount, tags, textChars, anchors };
}

/** Resolves the requested fields against a scanned document: absolute areas checked, anchors placed. */
export function resolveFields(
  fields: TemplateFieldInput[],
  scan: Pick<DocumentScan, "pageCount" | "anchors" | "textChars">,
  path: Path,
): { fields: ResolvedField[]; issues: ApiIssue[]; located: { field: ResolvedField; path: Path }[] } {
  const issues: ApiIssue[] = [];
  const out: ResolvedField[] = [];
  const located: { field: ResolvedField; path: Path }[] = [];
  const push = (field: ResolvedField, i: number) => {
    out.push(field);
    located.push({ field, path: [...path, i] });
  };
  let anchorIndex = 0;
  fields.forEach((f, i) => {
    const base = { name: f.name, type: f.type, role: f.role, required: f.required, readonly: f.readonly, default_value: f.default_value ?? null, options: f.type === "attachment" ? (f.accept ? [...new Set(f.accept)] : null) : (f.options ?? null) };
    if (f.accept && f.type !== "attachment") {
      issues.push({ code: "invalid_value", expected: `no accept on a ${f.type} field`, received: "accept", path: [...path, i, "accept"], message: "accept is only allowed on attachment fields" });
    }
    if (f.options && f.type === "attachment") {
      issues.push({ code: "invalid_value", expected: "accept, not options, on an attachment field", received: "options", path: [...path, i, "options"], message: "an attachment field lists its file types in accept" });
    }
    const p = f.placement;
    if (p.mode === "absolute") {
      p.areas.forEach((a, j) => {
        if (a.page > scan.pageCount) issues.push(pageIssue([...path, i, "placement", "areas", j, "page"], a.page, scan.pageCount));
      });
      push({ ...base, placement_mode: "absolute", areas: p.areas }, i);
      return;
    }
    const result = scan.anchors.result(anchorIndex++);
    const at = [...path, i, "placement"];
    if (p.page !== undefined && p.page > scan.pageCount) {
      issues.push(pageIssue([...at, "page"], p.page, scan.pageCount));
      return;
    }
    if (!result.found) {
      const noText = scan.textChars === 0 ? " (the PDF has no text layer; scanned documents need absolute placement)" : "";
      const message =
        result.matches === 0
          ? `Anchor not found: ${JSON.stringify(p.anchor_text)} does not occur in the PDF${p.page ? ` on page ${p.page}` : ""}${noText}`
          : `Anchor not found: occurrence ${p.occurrence} of ${JSON.stringify(p.anchor_text)} requested, but it occurs ${result.matches} time(s)`;
      issues.push({ code: "anchor_not_found", expected: `occurrence ${p.occurrence} of the anchor text`, received: `${result.matches} match(es)`, path: [...at, "anchor_text"], message });
      return;
    }
    const m = result.match;
    const area = { page: m.page, x: round(m.x + p.offset_x), y: round(m.y + p.offset_y), w: p.w, h: p.h };
    const off = offPage(area);
    if (off) issues.push({ code: "area_off_page", expected: "an area within the page (0 <= x, y and x + w, y + h <= 1)", received: off, path: at, message: `The field placed at its anchor runs off the page: ${off}` });
    push({ ...base, placement_mode: "anchor", areas: [area], anchor_match: m }, i);
  });
  return { fields: out, issues, located };
}

function pageIssue(path: Path, page: number, pageCount: number): ApiIssue {
  return { code: "too_big", expected: `a page <= ${pageCount}`, received: String(page), path, message: `Page ${page} does not exist: the PDF has ${pageCount} page(s)` };
}

function offPage(a: AreaInput): string | null {
  const bad = [a.x < 0 && `x = ${a.x}`, a.y < 0 && `y = ${a.y}`, a.x + a.w > 1 + 1e-9 && `x + w = ${round(a.x + a.w)}`, a.y + a.h > 1 + 1e-9 && `y + h = ${round(a.y + a.h)}`].filter(Boolean);
  return bad.length ? bad.join(", ") : null;
}

/**
 * Fields from embedded tags. Tags sharing a name make one field with one area per tag; their other
 * attributes must agree (an attribute given on one tag applies to all of them). `width`/`height` are
 * 72-DPI pixels, i.e. PDF points, converted to fractions of the displayed page; without them the
 * field takes the tag's own rectangle.
 */
export function tagFields(tags: FoundTag[], path: Path): { fields: ResolvedField[]; issues: ApiIssue[] } {
  const issues: ApiIssue[] = [];
  const byName = new Map<string, { attrs: TagAttributes; areas: AreaInput[]; first: FoundTag }>();
  tags.forEach((tag, i) => {
    const { attrs, issues: tagIssues } = parseTag(tag, [...path, i]);
    issues.push(...tagIssues);
    if (!attrs) return;
    const area = {
      page: tag.page,
      x: tag.rect.x,
      y: tag.rect.y,
      w: round(attrs.width !== undefined ? attrs.width / tag.pageSize.width : tag.rect.w),
      h: round(attrs.height !== undefined ? attrs.height / tag.pageSize.height : tag.rect.h),
    };
    const off = offPage(area);
    if (off) issues.push({ code: "area_off_page", expected: "a field within the page", received: off, path: [...path, i], message: `tag ${tag.raw} on page ${tag.page}: the field runs off the page (${off})` });
    const group = byName.get(attrs.name);
    if (!group) {
      byName.set(attrs.name, { attrs: { ...attrs }, areas: [area], first: tag });
      return;
    }
    group.areas.push(area);
    for (const key of ["type", "role", "required", "readonly", "default", "options"] as const) {
      if (attrs[key] === undefined) continue;
      if (group.attrs[key] === undefined) (group.attrs as Record<string, unknown>)[key] = attrs[key];
      else if (String(group.attrs[key]) !== String(attrs[key])) {
        issues.push({
          code: "conflicting_tags",
          expected: `${key}=${String(group.attrs[key])} as on ${group.first.raw} (page ${group.first.page})`,
          received: `${key}=${String(attrs[key])}`,
          path: [...path, i, key],
          message: `tag ${tag.raw} on page ${tag.page}: tags named ${JSON.stringify(attrs.name)} disagree on ${key}`,
        });
      }
    }
  });
  const fields = [...byName.values()].map(({ attrs, areas }) => ({
    name: attrs.name,
    type: attrs.type!,
    role: attrs.role!,
    required: attrs.required ?? false,
    readonly: attrs.readonly ?? false,
    default_value: attrs.default ?? null,
    options: attrs.options ?? null,
    placement_mode: "tag" as const,
    areas,
  }));
  return { fields, issues };
}

/**
 * Rules across fields: names are unique within a template (prefilled_data matches by name), and a
 * default must suit its type; a signature or initials field never has one, since a prefilled
 * signature is a forged one. Select and radio fields carry their options (see `optionIssues`).
 */
export function checkFieldRules(fields: { field: ResolvedField; path: Path }[], existingNames: Set<string>): ApiIssue[] {
  const issues: ApiIssue[] = [];
  const names = new Set(existingNames);
  for (const { field, path } of fields) {
    if (names.has(field.name)) {
      issues.push({ code: "duplicate_name", expected: "a field name not used yet in this template", received: JSON.stringify(field.name), path: [...path, "name"], message: `A field named ${JSON.stringify(field.name)} already exists in this template` });
    }
    names.add(field.name);
    issues.push(...optionIssues(field, path));
    const d = field.default_value;
    if (d === null || isChoiceType(field.type)) continue;
    const bad =
      field.type === "signature" || field.type === "initials" || field.type === "attachment"
        ? `${field.type} fields cannot have a default value`
        : field.type === "checkbox" && d !== "true" && d !== "false"
          ? "a checkbox default is true or false"
          : field.type === "number" && (d.trim() === "" || !Number.isFinite(Number(d)))
            ? "a number default must be a number"
            : null;
    if (bad) issues.push({ code: "invalid_value", expected: "a default suited to the field type", received: JSON.stringify(d), path: [...path, "default_value"], message: bad });
  }
  return issues;
}

/**
 * Options of select and radio fields, as DocuSeal and DocuSign have them: required on those two types
 * and refused on the others (a stray list would be a partner's mistake, not a feature), each listed
 * once, and a default among them. A radio is either drawn in one area (the chosen option's text) or
 * placed option by option, one area per option in order (DocuSign's radio group); any other count
 * cannot be mapped to its choices.
 */
export function optionIssues(field: ResolvedField, path: Path): ApiIssue[] {
  const at = [...path, "options"];
  // an attachment's options are its accepted types, checked by the schema (TemplateFieldInputSchema.accept)
  if (field.type === "attachment") return [];
  if (!isChoiceType(field.type)) {
    return field.options === null
      ? []
      : [{ code: "invalid_value", expected: `no options on a ${field.type} field`, received: "options", path: at, message: "options are only allowed on select and radio fields" }];
  }
  const options = field.options;
  if (options === null) return [{ code: "invalid_type", expected: "an array of 1 to 50 options", received: "undefined", path: at, message: "options is required for select and radio fields" }];
  const issues: ApiIssue[] = [];
  options.forEach((o, j) => {
    if (options.indexOf(o) !== j) issues.push({ code: "duplicate_option", expected: "each option once", received: JSON.stringify(o), path: [...at, j], message: `The option ${JSON.stringify(o)} is listed twice` });
  });
  const d = field.default_value;
  if (d !== null && !options.includes(d)) {
    issues.push({ code: "invalid_value", expected: `one of the options: ${options.join(", ")}`, received: JSON.stringify(d), path: [...path, "default_value"], message: `The default of a ${field.type} field must be one of its options (${options.join(", ")})` });
  }
  const n = field.areas.length;
  if (field.type === "radio" && n !== 1 && n !== options.length) {
    const tags = field.placement_mode === "tag";
    issues.push({
      code: "invalid_placement",
      expected: tags ? `1 or ${options.length} tags named ${JSON.stringify(field.name)}` : `1 or ${options.length} areas`,
      received: tags ? `${n} tags` : `${n} areas`,
      path: tags ? path : [...path, "placement", "areas"],
      message: tags
        ? `A radio field is placed by one tag (its choices drawn there) or by one tag per option, in order: ${JSON.stringify(field.name)} has ${options.length} options but ${n} tags`
        : `A radio field has one area (its choices drawn inside it) or one area per option, in order: ${options.length} options need 1 or ${options.length} areas, not ${n}`,
    });
  }
  return issues;
}

/** 422 for placement problems; anchors not found are named as such in the error text. */
export function placementFailed(issues: ApiIssue[]): never {
  const anchors = issues.filter((i) => i.code === "anchor_not_found");
  const error = anchors.length === issues.length ? (anchors.length === 1 ? anchors[0]!.message : `Anchor not found: ${anchors.length} anchors could not be placed`) : "Validation failed";
  throw unprocessable(error, issues);
}
