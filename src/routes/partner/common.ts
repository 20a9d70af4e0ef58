import type { RouteConfig } from "@hono/zod-openapi";
import { errorResponses } from "../../lib/openapi";
import type { Scope } from "../../lib/scopes";
import { idempotency } from "../../middleware/idempotency";
import { partnerAuth, requireScope } from "../../middleware/partner-auth";
import type { SpeculativeRead } from "../../middleware/speculative-read";
import { defineRoute } from "../define";

const RATE_LIMIT_HEADERS = {
  "X-RateLimit-Limit": { description: "Requests admitted per minute for this key", schema: { type: "integer" as const } },
  "X-RateLimit-Remaining": { description: "Requests left in the current window", schema: { type: "integer" as const } },
  "X-RateLimit-Reset": { description: "Epoch seconds at which the window resets", schema: { type: "integer" as const } },
};

/**
 * Partner routes: the scope is declared once, here, and both documented (the API key security
 * requirement, one alternative per scope) and enforced (partnerAuth, then requireScope, any of them);
 * the standard error statuses and the rate-limit headers are added. `speculative` is a read the route
 * may start beside the key's limiter round trip (middleware/speculative-read.ts): it is offered before
 * partnerAuth, which starts it.
 */
export function partnerRoute<R extends RouteConfig>(
  scope: Scope | readonly Scope[],
  route: R,
  extraErrors: number[] = [],
  options: { speculative?: SpeculativeRead<unknown> } = {},
): R {
  const scopes: readonly Scope[] = typeof scope === "string" ? [scope] : scope;
  const responses: RouteConfig["responses"] = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = status.startsWith("2") ? { ...response, headers: RATE_LIMIT_HEADERS } : response;
  }
  return defineRoute(
    {
      ...route,
      tags: route.tags ?? ["Partner"],
      description: `${route.description ?? ""}\n\nRequired scope: ${scopes.map((s) => `\`${s}\``).join(" or ")}.`.trim(),
      security: scopes.map((s) => ({ ApiKeyAuth: [s] })),
      responses: { ...responses, ...errorResponses(401, 403, 429, ...extraErrors) },
    },
    [...(options.speculative ? [options.speculative.middleware] : []), partnerAuth, requireScope(scopes)],
    // after the scope and Content-Type checks: a key that may not call the route never has its body read
    [idempotency],
  );
}
