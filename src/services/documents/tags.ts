import type { ApiIssue } from "../../lib/validation";
import { FIELD_TYPES, MAX_OPTION_LENGTH, MAX_OPTIONS, type FieldType } from "./schema";
import type { Area, PageText } from "../../pdf";

/** One `{{name;attr=value;...}}` tag as found in a page's text layer. */
export type FoundTag = {
  page: number;
  /** the tag as it reads in the text layer, e.g. `{{buyer_sig;type=signature;role=buyer}}` */
  raw: string;
  /** the tag's own rectangle on the displayed page, and in user space for painting over it */
  rect: Area;
  userRect: [number, number, number, number];
  pageSize: { width: number; height: number };
};

export type TagAttributes = {
  name: string;
  type?: FieldType;
  role?: string;
  required?: boolean;
  readonly?: boolean;
  default?: string;
  /** `options=A,B,C`: comma separated, each trimmed */
  options?: string[];
  width?: number;
  height?: number;
};

const TAG = /\{\{([^{}]*)\}\}/g;

/** Finds every tag on a page and masks it, so anchors are never matched inside a tag's text. */
export function findTags(page: PageText): FoundTag[] {
  const tags: FoundTag[] = [];
  if (!page.mayHoldTags) return tags; // a tag starts with "{{": most pages are never made into a string
  for (const m of page.text.matchAll(TAG)) {
    const start = m.index;
    const end = start + m[0].length;
    tags.push({
      page: page.page,
      raw: m[0],
      rect: page.rect(start, end),
      userRect: page.userSpaceRect(start, end) ?? [0, 0, 0, 0],
      pageSize: { width: page.width, height: page.height },
    });
    page.mask(start, end);
  }
  return tags;
}

const BOOLEAN = /^(true|false)$/i;
const PIXELS = /^\d+(\.\d+)?$/;
/** The spec's table, plus `options` (select and radio choices, `options=A,B,C`; DocuSeal's tag attribute). */
const ATTRIBUTES = ["type", "role", "required", "width", "height", "default", "readonly", "options"] as const;

/**
 * Parses a tag's attributes. Every problem is reported as an issue (unknown attribute, repeated
 * attribute, a value outside the spec's table) rather than skipped, because an ignored typo places
 * a field the partner did not ask for.
 */
export function parseTag(tag: FoundTag, path: (string | number)[]): { attrs: TagAttributes | null; issues: ApiIssue[] } {
  const issues: ApiIssue[] = [];
  const where = `tag ${tag.raw} on page ${tag.page}`;
  const issue = (code: string, expected: string, received: string, message: string, at: (string | number)[] = []) =>
    issues.push({ code, expected, received, path: [...path, ...at], message: `${where}: ${message}` });
  const [rawName, ...pairs] = tag.raw.slice(2, -2).split(";");
  const name = (rawName ?? "").trim();
  if (!name) issue("invalid_tag", "a field name before the first ;", "empty", "the tag has no field name");
  if (name.length > 100) issue("too_big", "at most 100 characters", `${name.length} characters`, "the field name is too long");
  const attrs: TagAttributes = { name };
  const seen = new Set<string>();
  for (const pair of pairs) {
    if (pair.trim() === "") continue; // a trailing ";"
    const eq = pair.indexOf("=");
    const key = (eq === -1 ? pair : pair.slice(0, eq)).trim().toLowerCase();
    const value = eq === -1 ? "" : pair.slice(eq + 1).trim();
    if (!(ATTRIBUTES as readonly string[]).includes(key)) {
      issue("unknown_attribute", ATTRIBUTES.join(" | "), JSON.stringify(key), `unknown attribute ${JSON.stringify(key)}`, [key]);
      continue;
    }
    if (seen.has(key)) {
      issue("duplicate_attribute", "each attribute once", key, `the attribute ${key} is given twice`, [key]);
      continue;
    }
    seen.add(key);
    if (eq === -1 || (value === "" && key !== "default")) {
      issue("invalid_value", `${key}=<value>`, "no value", `the attribute ${key} has no value`, [key]);
      continue;
    }
    switch (key) {
      case "type":
        if ((FIELD_TYPES as readonly string[]).includes(value.toLowerCase())) attrs.type = value.toLowerCase() as FieldType;
        else issue("invalid_value", FIELD_TYPES.join(" | "), JSON.stringify(value), `type must be one of ${FIELD_TYPES.join(", ")}`, [key]);
        break;
      case "role":
        if (value.length <= 100) attrs.role = value;
        else issue("too_big", "at most 100 characters", `${value.length} characters`, "the role is too long", [key]);
        break;
      case "required":
      case "readonly":
        if (BOOLEAN.test(value)) attrs[key] = value.toLowerCase() === "true";
        else issue("invalid_value", "true | false", JSON.stringify(value), `${key} must be true or false`, [key]);
        break;
      case "width":
      case "height": {
        const px = Number(value);
        if (PIXELS.test(value) && px > 0) attrs[key] = px;
        else issue("invalid_value", "a positive number of pixels at 72 DPI", JSON.stringify(value), `${key} must be a positive number of pixels`, [key]);
        break;
      }
      case "default":
        attrs.default = value;
        break;
      case "options": {
        const options = value.split(",").map((o) => o.trim());
        if (options.some((o) => o === "")) issue("invalid_value", "options=A,B,C (no empty option)", JSON.stringify(value), "an option is empty", [key]);
        else if (options.length > MAX_OPTIONS) issue("too_big", `at most ${MAX_OPTIONS} options`, `${options.length} options`, `a field has at most ${MAX_OPTIONS} options`, [key]);
        else if (options.some((o) => o.length > MAX_OPTION_LENGTH)) issue("too_big", `options of at most ${MAX_OPTION_LENGTH} characters`, "a longer option", `an option is longer than ${MAX_OPTION_LENGTH} characters`, [key]);
        else attrs.options = options;
        break;
      }
    }
  }
  if (!attrs.type && !seen.has("type")) issue("missing_attribute", "type=<field type>", "undefined", "the tag has no type", ["type"]);
  if (!attrs.role && !seen.has("role")) issue("missing_attribute", "role=<submitter role>", "undefined", "the tag has no role", ["role"]);
  return { attrs: issues.length ? null : attrs, issues };
}
