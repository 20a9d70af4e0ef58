import type { RouteConfig } from "@hono/zod-openapi";
import type { OrgMembership } from "../../lib/hono";
import { errorResponses } from "../../lib/openapi";
import { requireMembership, sessionAuth } from "../../middleware/session-auth";
import { defineRoute } from "../define";

type Role = OrgMembership["role"];
/** Who may call a console route: any member of the organization, or one of the given roles. */
export type ConsoleAccess = "any member" | Role | readonly Role[];

/**
 * Console routes: bearer access token; `X-Org-Id` picks the organization when the token names none.
 * The access is declared once, here: documented (the bearer security requirement lists the role, one
 * alternative per role; none for any member) and enforced (sessionAuth, then requireMembership).
 */
export function sessionRoute<R extends RouteConfig>(access: ConsoleAccess, route: R, extraErrors: number[] = []): R {
  const roles: readonly Role[] | undefined = access === "any member" ? undefined : typeof access === "string" ? [access] : access;
  return defineRoute(
    {
      ...route,
      tags: route.tags ?? ["Console"],
      ...(roles ? { description: `${route.description ?? ""}\n\nRequired role: ${roles.map((r) => `\`${r}\``).join(" or ")}.`.trim() } : {}),
      security: roles ? roles.map((r) => ({ BearerAuth: [r] })) : [{ BearerAuth: [] }],
      responses: { ...route.responses, ...errorResponses(401, 403, ...extraErrors) },
    },
    [sessionAuth, requireMembership(roles ? [...roles] : undefined)],
  );
}
