import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../lib/hono";
import { ApiError } from "../lib/errors";
import { parseFaults } from "../lib/faults";
import { refuseInProduction } from "../lib/service-env";

/**
 * `FAULTS` (src/lib/faults.ts) is for development only. In production the fault layer injects
 * nothing, and every request answers 503 naming the variable: a deployment that carries it is
 * misconfigured, and says so on its first request instead of pretending to be the sandbox. In
 * development an unreadable value is refused the same way.
 */
export const refuseFaultsInProduction = createMiddleware<AppEnv>(async (c, next) => {
  const value = c.env.FAULTS?.trim();
  if (value) {
    refuseInProduction(c.env, "FAULTS", value);
    try {
      parseFaults(value);
    } catch (err) {
      // an unreadable plan injects nothing (src/lib/faults.ts): said on every request rather than run quietly fault-free
      throw new ApiError(503, `Service not configured: ${(err as Error).message}`, { variable: "FAULTS", value });
    }
  }
  await next();
});
