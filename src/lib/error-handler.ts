import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "./errors";
import type { AppEnv } from "./hono";
import { redactPath } from "./redact";

/**
 * Every error body carries `code`, a stable snake_case name a client can branch on: the specific one
 * the service chose (`not_controller`, `consent_required`, …) or, where it chose none, the status's
 * general one below. Messages may be reworded; codes are not.
 */
export const STATUS_CODES: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  410: "gone",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_failed",
  429: "rate_limited",
  500: "internal_error",
  502: "upstream_error",
  503: "service_unavailable",
};
const codeOf = (status: number, code?: string) => code ?? STATUS_CODES[status] ?? "error";

/**
 * `details` on a 422 is always the issue array (`[{ code, expected, received, path, message }]`): a
 * verb's refusal written otherwise is put in that shape here, one issue naming the whole request.
 */
function detailsOf(err: ApiError): unknown {
  if (err.status !== 422 || Array.isArray(err.details)) return err.details;
  const received = err.details === undefined ? "the request" : JSON.stringify(err.details).slice(0, 200);
  return [{ code: err.code ?? "invalid_value", expected: "a request the service can act on", received, path: [], message: err.message }];
}

/**
 * What the platform's bindings throw when a call failed for a moment (D1's reset or overloaded object, a
 * lost connection, R2's "try again", a Durable Object reset or a storage timeout): the request may be
 * repeated. Answered 503 `temporarily_unavailable` with Retry-After, never a 500 (docs/decisions/fault-layer.md).
 * A constraint failure or any other D1 error stays a 500: that is the service's fault, not the platform's.
 */
const TRANSIENT =
  /Network connection lost|caused object to be reset|exceeded timeout|D1 DB is overloaded|Please try again|operation timed out|Durable Object reset|aborted due to timeout/i;

export const isTransient = (err: unknown): boolean => err instanceof Error && TRANSIENT.test(err.message);

/** The one place an error becomes a response: `{ error, details?, code }`, never a stack trace. */
export function onError(err: Error, c: Context<AppEnv>): Response {
  if (err instanceof ApiError) {
    // a refusal that says when to come back says it in the header clients and proxies read
    const retryAfter = err.status === 429 ? (err.details as { retry_after?: unknown } | undefined)?.retry_after : undefined;
    if (typeof retryAfter === "number") c.header("Retry-After", String(retryAfter));
    return c.json(
      { error: err.message, ...(err.details !== undefined || err.status === 422 ? { details: detailsOf(err) } : {}), code: codeOf(err.status, err.code) },
      err.status,
    );
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    const message =
      status === 400 && /JSON/i.test(err.message)
        ? "Malformed JSON in request body"
        : status === 415
          ? "Unsupported media type: send the request body as JSON with Content-Type: application/json"
          : status === 413
            ? "Payload too large"
            : err.message || "Request failed";
    return c.json({ error: message, code: codeOf(status) }, status);
  }
  if (isTransient(err)) {
    console.warn(JSON.stringify({ level: "warn", request_id: c.get("requestId"), path: redactPath(c.req.path), transient: String(err) }));
    c.header("Retry-After", "1");
    return c.json({ error: "Service temporarily unavailable: a storage call failed; repeat the request", details: { request_id: c.get("requestId") ?? null }, code: "temporarily_unavailable" }, 503);
  }
  console.error(JSON.stringify({ level: "error", request_id: c.get("requestId"), path: redactPath(c.req.path), error: String(err), stack: err.stack }));
  return c.json({ error: "Internal server error", details: { request_id: c.get("requestId") ?? null }, code: codeOf(500) }, 500);
}

export function onNotFound(c: Context<AppEnv>): Response {
  return c.json({ error: `No route for ${c.req.method} ${c.req.path}`, code: codeOf(404) }, 404);
}
