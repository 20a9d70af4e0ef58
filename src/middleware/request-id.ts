import { createMiddleware } from "hono/factory";
import { createContext } from "../lib/context";
import { newId } from "../lib/ids";
import type { AppEnv } from "../lib/hono";
import { publishEvents } from "../services/webhooks/publish";

/**
 * Every response, errors and unknown routes included, carries the id the request is logged under.
 * It also starts the request's context (`c.var.ctx`): the system actor and no organization, until the
 * surface's auth middleware says who is calling.
 */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const id = newId("request");
  c.set("requestId", id);
  // publishEvents: a committed event's webhooks go out right after the response, in waitUntil (issue 17)
  c.set("ctx", createContext(c.env, (p) => c.executionCtx.waitUntil(p), { requestId: id, publisher: publishEvents }));
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
