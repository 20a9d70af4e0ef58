import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../lib/errors";
import type { AppEnv } from "../lib/hono";

const WINDOW_SECONDS = 60;

/**
 * Flood protection for the routes anyone on the internet can call with a credential they hold in a
 * link (the signer API by slug) or a token (the embed session): a slug has 128 bits, so guessing is
 * hopeless, but a client hammering them should not take D1 and R2 time from everyone else. Counted per
 * client address with the Workers Rate Limiting binding (per Cloudflare location, approximate), which
 * is what a flood limit needs; the exact per-key limits of the partner API are the RateLimiter
 * object's job. Without `cf-connecting-ip` (only off Cloudflare: tests, local tools) nothing is counted.
 */
export const clientThrottle: MiddlewareHandler<AppEnv> = async (c, next) => {
  const address = c.req.header("cf-connecting-ip");
  if (address) {
    const { success } = await c.env.SIGNER_LIMITER.limit({ key: address });
    if (!success) throw floodRefusal(c);
  }
  await next();
};

/** The 429 of the per-address flood limit, with its Retry-After. */
export function floodRefusal(c: Context<AppEnv>): ApiError {
  c.header("Retry-After", String(WINDOW_SECONDS));
  return new ApiError(429, "Too many requests from this address: wait a minute and try again", { retry_after: WINDOW_SECONDS });
}

export const FLOOD_WINDOW_MS = WINDOW_SECONDS * 1000;
