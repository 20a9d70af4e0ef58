import { z, type RouteConfig } from "@hono/zod-openapi";
import { mergeErrorCodes, type ErrorCodesByStatus } from "./errors";

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

/**
 * Route-level extension a route helper (or a route) fills with the specific error codes an operation
 * can answer, by status (`{ "422": ["idempotency_key_reused"] }`); completeDocument moves each list onto
 * its response, beside the status's general code.
 */
export const ERROR_CODES_KEY = "x-error-codes";
export { mergeErrorCodes, type ErrorCodesByStatus };

const HEADER_COMPONENTS = {
  "X-Request-Id": { description: "The id this request is logged under (`req_…`); quote it when reporting a problem", required: true, schema: { type: "string" } },
  "X-RateLimit-Limit": { description: "Requests admitted per minute for this API key", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in the current window", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Epoch seconds at which the window resets", schema: { type: "integer" } },
  "Retry-After": { description: "Seconds to wait before trying again (also in `details.retry_after`)", required: true, schema: { type: "integer" } },
  "Idempotent-Replayed": { description: "`true` when this is the stored answer to an earlier request with the same Idempotency-Key, replayed without running the operation again", schema: { type: "string", enum: ["true"] } },
} as const;
const headerRef = (name: keyof typeof HEADER_COMPONENTS) => ({ $ref: `#/components/headers/${name}` });

export const IDEMPOTENCY_KEY_PARAMETER = "Idempotency-Key";
const IDEMPOTENCY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "1 to 255 printable ASCII characters. A retry with the same key and the same body within 24 hours gets the first answer again (marked `Idempotent-Replayed: true`) without running the operation twice; the same key with another body is 422 `idempotency_key_reused`; a retry while the first request runs is 409.",
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
};
/** Answers the Idempotency-Key middleware never stores, so never replays (middleware/idempotency.ts isRetryAnswer). */
const NEVER_REPLAYED = (status: number) => status === 401 || status === 403 || status === 413 || status === 429 || status >= 500;

type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { name?: string; in?: string; $ref?: string }[];
  responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, { schema?: unknown }>; [k: string]: unknown }>;
  [ERROR_CODES_KEY]?: ErrorCodesByStatus;
};

/**
 * What every operation shares, written into the document once, from what the middleware does rather than
 * route by route:
 * - `X-Request-Id` on every response (middleware/request-id.ts);
 * - `X-RateLimit-*` on every response of an API-key operation past the key check (all but 401:
 *   middleware/partner-auth.ts sets them before admitting or refusing with 429);
 * - `Retry-After` on every 429 (each 429 the service sends says when to come back);
 * - `Idempotent-Replayed` on the answers of the operations that take `Idempotency-Key` (the routes
 *   declare the parameter where they mount middleware/idempotency.ts), but not on answers never stored;
 * - each error response lists its `code` values: the status's general code (lib/error-handler.ts) and
 *   the specific ones the operation declares, as `x-error-codes` and in the response's description
 *   (which every renderer shows). Not an enum on `code`: the general codes of the platform's faults
 *   (`temporarily_unavailable`) are not declared per operation, and the document must not call them invalid.
 * The argument is changed in place and returned.
 */
export function completeDocument<T>(document: T, generalCodes: Record<number, string>): T {
  const d = document as { components?: Record<string, Record<string, unknown>>; paths?: Record<string, Record<string, Operation>> };
  d.components ??= {};
  d.components.headers = { ...(d.components.headers ?? {}), ...HEADER_COMPONENTS };
  d.components.parameters = { ...(d.components.parameters ?? {}), IdempotencyKey: IDEMPOTENCY_PARAMETER };
  const unanswered: string[] = [];
  for (const pathItem of Object.values(d.paths ?? {})) {
    for (const op of Object.values(pathItem)) {
      if (!op || typeof op !== "object" || !op.responses) continue;
      const apiKey = (op.security ?? []).some((s) => "ApiKeyAuth" in s);
      const params = op.parameters ?? [];
      const idempotent = params.some((p) => p.$ref === "#/components/parameters/IdempotencyKey");
      const declared: Record<string, readonly string[]> = op[ERROR_CODES_KEY] ?? {};
      delete op[ERROR_CODES_KEY];
      // a code declared under a status the operation does not answer would vanish from the document unseen
      for (const status of Object.keys(declared)) if (!op.responses[status]) unanswered.push(`${op.operationId ?? "an operation"} ${status}`);
      for (const [statusText, response] of Object.entries(op.responses)) {
        const status = Number(statusText);
        const headers: Record<string, unknown> = { ...(response.headers ?? {}), "X-Request-Id": headerRef("X-Request-Id") };
        if (apiKey && status !== 401) {
          for (const name of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] as const) headers[name] = headerRef(name);
        }
        if (status === 429) headers["Retry-After"] = headerRef("Retry-After");
        if (idempotent && !NEVER_REPLAYED(status)) headers["Idempotent-Replayed"] = headerRef("Idempotent-Replayed");
        response.headers = headers;
        if (status < 400) continue;
        const codes = [...new Set([generalCodes[status] ?? "error", ...(declared[statusText] ?? [])])];
        response[ERROR_CODES_KEY] = codes;
        response.description = `${response.description ?? "Error"}. \`code\`: ${codes.map((c) => `\`${c}\``).join(", ")}`;
      }
    }
  }
  if (unanswered.length > 0) throw new Error(`Error codes declared for a status the operation does not answer: ${unanswered.join("; ")}`);
  return document;
}
