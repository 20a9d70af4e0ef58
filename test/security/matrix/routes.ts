import type { Hono } from "hono";
import { inspectRoutes } from "hono/dev";
import type { Op } from "./document";

/** One (method, path) the app answers, in the OpenAPI document's path syntax (`{name}` for `:name`). */
export type Endpoint = `${string} ${string}`;

/** Hono's `/a/:id` (or `/a/:id{[0-9]+}`) as the OpenAPI document writes it: `/a/{id}`. */
export const openApiPath = (honoPath: string) => honoPath.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}");

/**
 * What the app really registers, read from its router (`app.routes`), not from the document:
 * - `endpoints`: every method-specific registration, deduplicated (a route's own middleware shares its
 *   method and path); a route added with `app.get()` or `app.post()` outside OpenAPI is here too;
 * - `mounts`: every `ALL` registration by path, middleware (auth, throttles, the signing-session
 *   re-dispatch, which answers requests itself) and `app.all()` handlers alike: they see, and may
 *   answer, requests the document knows nothing of.
 */
export function registeredSurface(app: Hono<any, any, any>): { endpoints: Set<Endpoint>; mounts: Set<string> } {
  const endpoints = new Set<Endpoint>();
  const mounts = new Set<string>();
  for (const r of inspectRoutes(app)) {
    if (r.method === "ALL") mounts.add(openApiPath(r.path));
    else endpoints.add(`${r.method} ${openApiPath(r.path)}`);
  }
  return { endpoints, mounts };
}

export const endpointOf = (o: Op): Endpoint => `${o.method} ${o.path}`;

/**
 * What the reviewed lists do not account for: an endpoint neither in the document nor reviewed, an
 * operation documented but not served, a reviewed route or mount that no longer exists, an `ALL`
 * registration nobody reviewed. Empty when the app, its document and the review agree.
 */
export function unaccounted(
  app: Hono<any, any, any>,
  ops: Op[],
  reviewed: { routes: Record<string, unknown>; mounts: Record<string, unknown> },
): string[] {
  const { endpoints, mounts } = registeredSurface(app);
  const documented = new Set(ops.map(endpointOf));
  const out: string[] = [];
  for (const e of endpoints) {
    if (!documented.has(e) && !(e in reviewed.routes)) out.push(`${e}: served, but neither in the OpenAPI document nor in NON_OPENAPI_ROUTES`);
  }
  for (const e of documented) if (!endpoints.has(e)) out.push(`${e}: in the OpenAPI document, but not served`);
  for (const e of Object.keys(reviewed.routes)) {
    if (!endpoints.has(e as Endpoint)) out.push(`${e}: reviewed in NON_OPENAPI_ROUTES, but no longer served`);
    else if (documented.has(e as Endpoint)) out.push(`${e}: reviewed in NON_OPENAPI_ROUTES, but the document lists it now`);
  }
  for (const m of mounts) if (!(m in reviewed.mounts)) out.push(`ALL ${m}: sees every method under its path, but is not reviewed in MOUNTS`);
  for (const m of Object.keys(reviewed.mounts)) if (!mounts.has(m)) out.push(`ALL ${m}: reviewed in MOUNTS, but no longer registered`);
  return out;
}
