import { OpenAPIHono, type RouteConfig, type RouteHandler } from "@hono/zod-openapi";
import type { Env } from "../env";
import type { Actor } from "./actor";
import { validationHook } from "./validation";

export type PartnerKey = { keyId: string; orgId: string; scopes: string[] };
export type SessionUser = { userId: string; orgId: string | null };
export type OrgMembership = { orgId: string; role: "admin" | "custodian" | "member" };

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    apiKey: PartnerKey;
    session: SessionUser;
    membership: OrgMembership;
    actor: Actor;
  };
};

export function createRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook as never });
}

export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppEnv>;
