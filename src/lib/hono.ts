import { OpenAPIHono, type RouteConfig, type RouteHandler } from "@hono/zod-openapi";
import type { Env } from "../env";
import type { OrgContext, RequestContext } from "./context";
import { validationHook } from "./validation";

/**
 * A partner read that may start its D1 query beside partnerAuth's limiter round trip
 * (middleware/speculative-read.ts): partnerAuth calls `start`; the route's handler takes the typed answer.
 */
export type SpeculativeStart = { start: () => void };

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
    /**
     * The request's context (bindings, database, publish, request id, actor, organization): built by
     * the request-id middleware, refined by the surface's auth middleware. Service verbs take it first.
     */
    ctx: RequestContext;
    /** A read partnerAuth may run beside the key's limiter round trip (middleware/speculative-read.ts). */
    speculativeRead?: SpeculativeStart;
  };
};

/**
 * Partner and console routes: their auth middleware (partnerAuth, requireMembership) has put the
 * caller's organization on the context, so `c.var.ctx` is an OrgContext there.
 */
export type OrgEnv = {
  Bindings: Env;
  Variables: Omit<AppEnv["Variables"], "ctx"> & { ctx: OrgContext };
};

export function createRouter<E extends AppEnv | OrgEnv = AppEnv>() {
  return new OpenAPIHono<E>({ defaultHook: validationHook as never });
}

/** A router of partner or console routes, whose handlers read an OrgContext from `c.var.ctx`. */
export const createOrgRouter = () => createRouter<OrgEnv>();

export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppEnv>;
export type OrgRouteHandler<R extends RouteConfig> = RouteHandler<R, OrgEnv>;
