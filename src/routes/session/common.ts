import type { RouteConfig } from "@hono/zod-openapi";
import { errorResponses } from "../../lib/openapi";

/** Console routes: bearer access token; `X-Org-Id` picks the organization when the token names none. */
export function sessionRoute<R extends RouteConfig>(route: R, extraErrors: number[] = []): R {
  return {
    ...route,
    tags: route.tags ?? ["Console"],
    security: [{ BearerAuth: [] }],
    responses: { ...route.responses, ...errorResponses(401, 403, ...extraErrors) },
  };
}
