import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "./errors";
import type { AppEnv } from "./hono";
import { redactPath } from "./redact";

/** The one place an error becomes a response: `{ error, details?, code? }`, never a stack trace. */
export function onError(err: Error, c: Context<AppEnv>): Response {
  if (err instanceof ApiError) {
    // a refusal that says when to come back says it in the header clients and proxies read
    const retryAfter = err.status === 429 ? (err.details as { retry_after?: unknown } | undefined)?.retry_after : undefined;
    if (typeof retryAfter === "number") c.header("Retry-After", String(retryAfter));
    return c.json(
      { error: err.message, ...(err.details !== undefined ? { details: err.details } : {}), ...(err.code ? { code: err.code } : {}) },
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
    return c.json({ error: message }, status);
  }
  console.error(JSON.stringify({ level: "error", request_id: c.get("requestId"), path: redactPath(c.req.path), error: String(err), stack: err.stack }));
  return c.json({ error: "Internal server error", details: { request_id: c.get("requestId") ?? null } }, 500);
}

export function onNotFound(c: Context<AppEnv>): Response {
  return c.json({ error: `No route for ${c.req.method} ${c.req.path}` }, 404);
}
