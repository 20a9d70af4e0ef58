import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../lib/hono";

/**
 * A partner read that may start its D1 query while partnerAuth's limiter round trip is still in
 * flight, so the read costs the longer of the two hops instead of their sum. Declared on the route
 * (`partnerRoute(scope, route, errors, { speculative })`), whose `middleware` runs before partnerAuth
 * and offers the read; partnerAuth decides whether to start it (not for a key this isolate saw
 * limited), and the handler takes the pending answer with `resultOf(c)` only once the key is admitted.
 * The organization is not known when it starts, so the read must not be scoped by it: it returns the
 * row's `org_id` and the handler answers from the row only if that is the caller's organization
 * (anything else is not found), which reveals nothing the scoped read would not.
 */
export type SpeculativeRead<T> = {
  middleware: ReturnType<typeof createMiddleware<AppEnv>>;
  /** The read's pending answer, when partnerAuth started it for this request. */
  resultOf: (c: Context) => Promise<T> | undefined;
};

export function speculativeRead<T>(read: (c: Context<AppEnv>) => Promise<T>): SpeculativeRead<T> {
  // per request (the raw Request is this request's alone), so the answer keeps its type without a cast
  const started = new WeakMap<Request, Promise<T>>();
  return {
    middleware: createMiddleware<AppEnv>(async (c, next) => {
      if (c.req.method === "GET") {
        c.set("speculativeRead", {
          start: () => {
            const result = read(c);
            result.catch(() => {}); // an unused answer's failure is nobody's: a refused request never reads it
            started.set(c.req.raw, result);
          },
        });
      }
      await next();
    }),
    resultOf: (c) => started.get(c.req.raw),
  };
}
