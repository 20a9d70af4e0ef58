import { createMiddleware } from "hono/factory";
import { newId } from "../lib/ids";
import type { AppEnv } from "../lib/hono";

/** Every response, errors and unknown routes included, carries the id the request is logged under. */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const id = newId("request");
  c.set("requestId", id);
  c.header("X-Request-Id", id);
  await next();
  try {
    c.res.headers.set("X-Request-Id", id);
  } catch {
    // Responses from bindings (static assets, R2) have immutable headers: copy, then stamp.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set("X-Request-Id", id);
  }
});
