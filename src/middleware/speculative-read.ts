import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../lib/hono";

/**
 * A partner read that may start its D1 query while partnerAuth's limiter round trip is still in
 * flight (issue 17), so the read costs the longer of the two hops instead of their sum. partnerAuth
 * decides whether to start it (`start`) and leaves the pending answer on `result`; the handler uses it
 * only once the key is admitted. The organization is not known when it starts, so the read must not be
 * scoped by it: it returns the row's `org_id` and the handler answers from the row only if that is the
 * caller's organization (anything else is not found), which reveals nothing the scoped read would not.
 * Registers `read` for the matching partner routes; mount it before partnerAuth.
 */
export function speculativeRead(read: (c: Context<AppEnv>) => Promise<unknown>) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method === "GET") c.set("speculativeRead", { start: () => read(c) });
    await next();
  });
}
