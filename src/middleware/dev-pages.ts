import { createMiddleware } from "hono/factory";
import { onNotFound } from "../lib/error-handler";
import type { AppEnv } from "../lib/hono";
import { refuseInProduction } from "../lib/service-env";

/**
 * Dev-only pages exist only where `DEV_PAGES` is exactly "true" (local `.dev.vars`); anywhere else
 * they answer the ordinary 404 of an unknown route, so production does not even reveal them. They
 * show other people's signing links, which are credentials: `DEV_PAGES=true` in production
 * (SERVICE_ENV) is a misconfiguration, answered 503 naming the variable rather than served.
 */
export const devPagesOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (c.env.DEV_PAGES !== "true") return onNotFound(c);
  refuseInProduction(c.env, "DEV_PAGES", "true");
  await next();
});
