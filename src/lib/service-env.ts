import type { Env } from "../env";
import { ApiError } from "./errors";

/**
 * `SERVICE_ENV`: `development` only where it says exactly that (`npm run dev`'s .dev.vars, the test
 * configuration, the bench); unset, or anything else, is production. The safe side is the default,
 * so a deployment that forgets the variable gets production's refusals, never the sandbox.
 */
export function isDevelopment(env: Pick<Env, "SERVICE_ENV">): boolean {
  return env.SERVICE_ENV?.trim() === "development";
}

/** 503 naming the variable: a development-only setting met by a request in production. */
export const developmentOnly = (variable: string, value: string) =>
  new ApiError(503, `Service not configured: ${variable}=${value} is for development only and is refused in production (SERVICE_ENV is not "development")`, {
    variable,
    value,
  });

/**
 * Throws {@link developmentOnly} unless this is a development deployment. Called where a request
 * first needs the setting (sending, answering KBA, registering a webhook, opening a dev page), so a
 * misconfigured production answers 503 naming the variable instead of quietly faking the real thing.
 */
export function refuseInProduction(env: Pick<Env, "SERVICE_ENV">, variable: string, value: string): void {
  if (!isDevelopment(env)) throw developmentOnly(variable, value);
}
