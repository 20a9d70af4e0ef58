import type { RouteConfig } from "@hono/zod-openapi";
import { errorResponses } from "../../lib/openapi";
import { defineRoute } from "../define";

/** Operator routes: bearer OPERATOR_TOKEN, tagged and with their error statuses. */
export function operatorRoute<R extends RouteConfig>(route: R, extraErrors: number[] = []): R {
  const writes = route.method === "post" || route.method === "patch" || route.method === "put";
  return defineRoute({
    ...route,
    tags: ["Operator"],
    security: [{ OperatorToken: [] }],
    responses: { ...route.responses, ...errorResponses(401, 503, ...(writes ? [400, 415, 422] : []), ...extraErrors) },
  });
}
