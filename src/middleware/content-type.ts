import type { RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../lib/errors";
import type { AppEnv } from "../lib/hono";

const WRITES = new Set(["POST", "PUT", "PATCH"]);

/**
 * Writes carry JSON (spec 4.1); the routes that take a file upload take multipart instead. Anything
 * else is 415 before the body is read.
 */
export function requireContentType(kind: "json" | "multipart" = "json") {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (WRITES.has(c.req.method)) {
      const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      const ok = kind === "json" ? type === "application/json" || /^application\/[a-z.+-]*\+json$/.test(type) : type === "multipart/form-data";
      if (!ok) {
        throw new ApiError(
          415,
          kind === "json"
            ? "Unsupported media type: send the request body as JSON with Content-Type: application/json"
            : "Unsupported media type: send the request as multipart/form-data",
          { received: type || null },
        );
      }
    }
    await next();
  });
}

const JSON_TYPE = /^application\/([a-z.+-]*\+)?json$/;
const mediaType = (header: string | undefined) => (header ?? "").split(";")[0]!.trim().toLowerCase();

/** Whether the request carries at least one byte of body (a Content-Length of 0, or no body, is empty). */
async function hasBody(req: Request): Promise<boolean> {
  if (req.body === null || req.headers.get("content-length") === "0") return false;
  const reader = req.clone().body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      if (value.byteLength > 0) return true;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

const unsupported = (type: string) =>
  new ApiError(415, "Unsupported media type: send the request body as JSON with Content-Type: application/json", { received: type || null });

/**
 * A POST that takes no body, or only optional fields: an empty body needs no Content-Type (as DocuSign,
 * Stripe and GitHub accept a bodiless POST); a body that is sent must still be JSON. An empty body on a
 * route with optional fields is read as `{}`, so the body schema's defaults apply as for a JSON `{}`.
 */
function optionalJson(readsBody: boolean) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const type = mediaType(c.req.header("content-type"));
    if (await hasBody(c.req.raw)) {
      if (!JSON_TYPE.test(type)) throw unsupported(type);
    } else if (readsBody) {
      const headers = new Headers(c.req.raw.headers);
      headers.set("content-type", "application/json");
      headers.delete("content-length");
      c.req.raw = new Request(c.req.raw, { headers, body: "{}" });
    }
    await next();
  });
}

/** The body a route declares: JSON (required, or only optional fields), multipart, or none. */
export function declaredBody(route: RouteConfig): "json" | "optional-json" | "multipart" | "none" {
  const content = route.request?.body?.content ?? {};
  if (content["multipart/form-data"]) return "multipart";
  const json = content["application/json"] as { schema?: { safeParse?: (v: unknown) => { success: boolean } } } | undefined;
  const schema = json?.schema;
  if (!schema) return "none";
  return typeof schema.safeParse === "function" && schema.safeParse({}).success ? "optional-json" : "json";
}

/**
 * The Content-Type rule is the method's, derived from the body the route declares: a write whose body is
 * JSON must say so (415 otherwise); a multipart route takes multipart; a POST with no body, or only
 * optional fields, accepts an empty body without a Content-Type (PUT and PATCH still need JSON).
 */
export function contentTypeRule(route: RouteConfig): MiddlewareHandler[] {
  if (!WRITES.has(route.method.toUpperCase())) return [];
  const body = declaredBody(route);
  if (body === "multipart") return [requireContentType("multipart")];
  if (route.method === "post" && body === "none") return [optionalJson(false)];
  if (route.method === "post" && body === "optional-json") return [optionalJson(true)];
  return [requireContentType("json")];
}
