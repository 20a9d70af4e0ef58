import type { RouteConfig } from "@hono/zod-openapi";
import { errorResponses } from "../../lib/openapi";
import { operatorAuth } from "../../middleware/operator-auth";
import { defineRoute } from "../define";

/** Operator routes: bearer OPERATOR_TOKEN (documented and checked here), tagged and with their error statuses. */
export function operatorRoute<R extends RouteConfig>(route: R, extraErrors: number[] = []): R {
  const writes = route.method === "post" || route.method === "patch" || route.method === "put";
  return defineRoute(
    {
      ...route,
      tags: ["Operator"],
      security: [{ OperatorToken: [] }],
      responses: { ...route.responses, ...errorResponses(401, 503, ...(writes ? [400, 415, 422] : []), ...extraErrors) },
    },
    [operatorAuth],
  );
}
