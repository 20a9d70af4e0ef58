import { z, type RouteConfig } from "@hono/zod-openapi";

export const ErrorSchema = z
  .object({
    error: z.string(),
    details: z.union([z.array(z.any()), z.record(z.string(), z.any())]).optional(),
    code: z.string().openapi({ description: "A stable snake_case name for the error: a specific one (`not_controller`, `consent_required`, …) or the status's general one (`not_found`, `validation_failed`, `rate_limited`, …)" }),
  })
  .openapi("Error", { example: { error: "Envelope not found", code: "not_found" } });

export const ValidationErrorSchema = z
  .object({
    error: z.string(),
    details: z.array(
      z.object({
        code: z.string(),
        expected: z.string(),
        received: z.string(),
        path: z.array(z.union([z.string(), z.number()])),
        message: z.string(),
      }),
    ),
    code: z.string().openapi({ description: "`validation_failed`, or a more specific name" }),
  })
  .openapi("ValidationError", {
    example: {
      error: "Validation failed",
      code: "validation_failed",
      details: [{ code: "invalid_type", expected: "string", received: "undefined", path: ["customer_email"], message: "Invalid input: expected string, received undefined" }],
    },
  });

const ERROR_TEXT: Record<number, string> = {
  400: "Malformed JSON or invalid query parameters",
  401: "Missing, invalid or deactivated credential",
  403: "Authenticated, but a required scope or role is missing",
  404: "Not found, or outside the caller's organization",
  409: "Conflict with the resource's current state",
  410: "Gone: the link no longer works (its envelope is closed)",
  413: "Payload too large",
  415: "Unsupported media type (writes take application/json)",
  422: "Validation failed, or the move is not allowed from the current status",
  429: "Rate limit exceeded; see Retry-After",
  503: "A required setting of the service is not configured",
};

export function errorResponses(...statuses: number[]): RouteConfig["responses"] {
  const out: RouteConfig["responses"] = {};
  for (const status of statuses) {
    out[status] = {
      description: ERROR_TEXT[status] ?? "Error",
      content: { "application/json": { schema: status === 422 ? z.union([ValidationErrorSchema, ErrorSchema]) : ErrorSchema } },
    };
  }
  return out;
}

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

export const dataOf = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

export const PageMeta = z
  .object({ page: z.int(), limit: z.int(), total: z.int() })
  .openapi("PageMeta", { example: { page: 1, limit: 20, total: 42 } });

export const listOf = <T extends z.ZodType>(schema: T) => z.object({ data: z.array(schema), meta: PageMeta });

/**
 * zod-openapi writes a nullable `$ref` as `allOf: [{ $ref }, { type: ["object", "null"] }]`, which no
 * value satisfies when it is `null` (the `$ref` half refuses it): validators such as Prism rejected every
 * `pledgor: null` the service sends. Rewrites each such node, in place, as
 * `anyOf: [{ $ref }, { type: "null" }]`, keeping the node's description and other keywords.
 */
export function fixNullableRefs<T>(node: T): T {
  if (Array.isArray(node)) {
    node.forEach(fixNullableRefs);
    return node;
  }
  if (!node || typeof node !== "object") return node;
  const o = node as Record<string, unknown>;
  const all = o.allOf;
  if (Array.isArray(all) && all.length === 2) {
    const [ref, nullable] = all as Record<string, unknown>[];
    const type = nullable?.type;
    const annotations = Object.keys(nullable ?? {}).filter((k) => k !== "type");
    if (ref && typeof ref.$ref === "string" && Array.isArray(type) && type.includes("null") && annotations.every((k) => k === "description" || k === "example")) {
      delete o.allOf;
      for (const k of annotations) o[k] ??= nullable![k];
      o.anyOf = [ref, { type: "null" }];
    }
  }
  for (const value of Object.values(o)) fixNullableRefs(value);
  return node;
}
