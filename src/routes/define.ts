import type { RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { errorResponses } from "../lib/openapi";
import { clientThrottle } from "../middleware/client-throttle";
import { contentTypeRule, declaredBody } from "../middleware/content-type";
import { recordShard } from "../middleware/record-shard";

const listOf = (m: RouteConfig["middleware"]): MiddlewareHandler[] => (m === undefined ? [] : Array.isArray(m) ? [...m] : [m as MiddlewareHandler]);

/**
 * Every route object goes through here (through partnerRoute, sessionRoute, operatorRoute, embedRoute,
 * signerRoute or publicRoute): the shard a record id in the path names comes first (middleware/record-shard.ts), then the access check the route declares runs first (its credential's
 * middleware, mounted on this route only: no path glob decides who is checked), then the route's own middleware, then
 * the Content-Type rule derived from its declared body (middleware/content-type.ts), then `afterChecks`
 * (the partner routes' Idempotency-Key, which reads the body: only a request that passed the access and
 * Content-Type checks gets its body read). A POST whose body has only optional fields is documented as
 * `required: false`, as it is served. A route behind the per-address throttle declares its 429.
 */
export function defineRoute<R extends RouteConfig>(route: R, access: MiddlewareHandler[] = [], afterChecks: MiddlewareHandler[] = []): R {
  const optionalBody = route.method === "post" && declaredBody(route) === "optional-json";
  const throttled = access.includes(clientThrottle);
  return {
    ...route,
    ...(throttled ? { responses: { ...errorResponses(429), ...route.responses } } : {}),
    ...(optionalBody ? { request: { ...route.request, body: { ...route.request!.body!, required: false } } } : {}),
    middleware: [recordShard, ...access, ...listOf(route.middleware), ...contentTypeRule(route), ...afterChecks],
  } as R;
}

/**
 * An operation that takes no credential (health, the signer's slug routes, signed storage downloads,
 * development pages): `security: []` says so to tools, and the security matrix checks it as such.
 * `guards` are what such a route still runs first (the per-address throttle of signed downloads).
 */
export function publicRoute<R extends RouteConfig>(route: R, guards: MiddlewareHandler[] = []): R {
  return defineRoute({ ...route, security: [] }, guards);
}
