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
