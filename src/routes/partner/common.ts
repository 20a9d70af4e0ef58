import type { RouteConfig } from "@hono/zod-openapi";
import { ERROR_CODES_KEY, errorResponses, mergeErrorCodes, type ErrorCodesByStatus } from "../../lib/openapi";
import type { Scope } from "../../lib/scopes";
import { idempotency } from "../../middleware/idempotency";
import { partnerAuth, requireScope } from "../../middleware/partner-auth";
import type { SpeculativeRead } from "../../middleware/speculative-read";
import { defineRoute } from "../define";

/**
 * Partner routes: the scope is declared once, here, and both documented (the API key security
 * requirement, one alternative per scope) and enforced (partnerAuth, then requireScope, any of them);
 * the standard error statuses are added (the rate-limit headers every answer carries are declared for
 * every API-key operation by completeDocument, lib/openapi.ts). A POST takes `Idempotency-Key`
 * (middleware/idempotency.ts, mounted here): the header parameter and the answers it adds (400 for a
 * malformed key, 409 while the first request runs, 422 `idempotency_key_reused`) are declared here too. `speculative` is a read the route
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
  const idempotent = route.method === "post";
  const declared = (route as { [ERROR_CODES_KEY]?: ErrorCodesByStatus })[ERROR_CODES_KEY];
  return defineRoute(
    {
      ...route,
      ...(idempotent
        ? {
            parameters: [...((route as { parameters?: unknown[] }).parameters ?? []), { $ref: "#/components/parameters/IdempotencyKey" }],
            [ERROR_CODES_KEY]: mergeErrorCodes(declared, { 422: ["idempotency_key_reused"] }),
          }
        : {}),
      tags: route.tags ?? ["Partner"],
      description: `${route.description ?? ""}\n\nRequired scope: ${scopes.map((s) => `\`${s}\``).join(" or ")}.`.trim(),
      security: scopes.map((s) => ({ ApiKeyAuth: [s] })),
      responses: { ...route.responses, ...errorResponses(401, 403, 429, ...(idempotent ? [400, 409, 422] : []), ...extraErrors) },
    },
    [...(options.speculative ? [options.speculative.middleware] : []), partnerAuth, requireScope(scopes)],
    // after the scope and Content-Type checks: a key that may not call the route never has its body read
    [idempotency],
  );
}
