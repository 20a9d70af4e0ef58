import type { Context } from "hono";
import type { z } from "zod";
import { ApiError } from "./errors";

export type ApiIssue = {
  code: string;
  expected: string;
  received: string;
  path: (string | number)[];
  message: string;
};

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "nan";
  return typeof value;
}

/** zod 4 issues carry no `received`: look the value up in the input at the issue's path. */
function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let cur = input;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    if (!Object.prototype.hasOwnProperty.call(cur, key as PropertyKey)) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key as PropertyKey];
  }
  return cur;
}

function expectedOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected;
    case "too_big":
      return `${issue.origin} ${issue.inclusive === false ? "<" : "<="} ${String(issue.maximum)}`;
    case "too_small":
      return `${issue.origin} ${issue.inclusive === false ? ">" : ">="} ${String(issue.minimum)}`;
    case "invalid_value":
      return issue.values.map((v) => JSON.stringify(v)).join(" | ");
    case "invalid_format":
      return issue.format;
    case "unrecognized_keys":
      return "no other keys";
    case "invalid_union":
      return "one of the allowed shapes";
    default:
      return issue.code;
  }
}

export function toApiIssues(error: z.ZodError, input: unknown): ApiIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
    const value = valueAt(input, issue.path);
    const received =
      issue.code === "unrecognized_keys"
        ? issue.keys.join(", ")
        : issue.code === "invalid_value" && (typeof value === "string" || typeof value === "number")
          ? JSON.stringify(value).slice(0, 100)
          : describe(value);
    return { code: issue.code, expected: expectedOf(issue), received, path, message: issue.message };
  });
}

/**
 * Default hook of every OpenAPI route: a body that fails its schema is 422 with zod-style issues;
 * bad query parameters or path parameters are 400.
 */
export function validationHook(
  result: { success: true; data: unknown; target: string } | { success: false; error: z.ZodError; data: unknown; target: string },
  _c: Context,
): void {
  if (result.success) return;
  const issues = toApiIssues(result.error, result.data);
  if (result.target === "json" || result.target === "form") {
    throw new ApiError(422, "Validation failed", issues);
  }
  throw new ApiError(400, `Invalid ${result.target === "param" ? "path" : result.target} parameters`, issues);
}

/**
 * One issue of a 422's `details` written by a verb rather than by zod, in the same shape: `details` on a
 * 422 is always an array of these (docs/decisions/api-errors-and-validation.md).
 */
export const apiIssue = (path: (string | number)[], expected: string, received: string, message: string, code = "invalid_value"): ApiIssue => ({ code, expected, received, path, message });
