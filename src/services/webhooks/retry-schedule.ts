/**
 * Spec 6.4 and part 8: retries at 1 min, 5 min, 30 min, 2 h and 8 h, each with +-20% jitter so that
 * an endpoint coming back from an outage is not hit by every retry at once. The first attempt is
 * immediate and is not a retry; after the fifth retry fails the delivery is `failed`. (The spec's
 * "5 attempts in total" cannot hold together with a five-step schedule after an immediate first
 * send; docs/decisions/webhook-delivery-and-retries.md records why the schedule wins.)
 */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 8 * 3_600_000] as const;
export const JITTER = 0.2;
/** HTTP attempts of an ordinary delivery: the immediate one plus one per retry step. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** When to try again after failed attempt number `attempt` (1-based); null when none is left. */
export function nextRetryAt(attempt: number, maxAttempts: number, now: Date, random: () => number = Math.random): Date | null {
  const delay = RETRY_DELAYS_MS[attempt - 1];
  if (attempt >= maxAttempts || delay === undefined) return null;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return new Date(now.getTime() + Math.round(delay * factor));
}
