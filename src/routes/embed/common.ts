import type { RouteConfig } from "@hono/zod-openapi";
import { clientThrottle } from "../../middleware/client-throttle";
import { embedAuth } from "../../middleware/embed-auth";
import { defineRoute } from "../define";

/**
 * Embed host routes: the embed token (`Authorization: Bearer`) is the credential, documented as the
 * EmbedToken scheme and verified before the request is read. The per-address throttle runs first, so a
 * flood of forged tokens costs no verification.
 */
export function embedRoute<R extends RouteConfig>(route: R): R {
  return defineRoute({ ...route, tags: route.tags ?? ["Embed"], security: [{ EmbedToken: [] }] }, [clientThrottle, embedAuth]);
}
