/**
 * The one retry policy of a commit that lost a race (the envelope's chain moved between read and
 * batch): at most COMMIT_ATTEMPTS attempts, each after a jittered pause that grows with the attempt,
 * so two requests that collided do not collide again in step. Every commit loop uses this.
 */
export const COMMIT_ATTEMPTS = 5;

/**
 * An organization's own chain (operator imports, template edits) may see 50 writers at once: the same
 * policy, with more attempts before the 409 (about 14 s of pauses at most).
 */
export const ORG_CHAIN_ATTEMPTS = 40;

const BASE_PAUSE_MS = 5;
const MAX_PAUSE_MS = 400;

/** Full jitter: a random pause in [0, min(cap, base * 2^attempt)) before attempt `attempt` (0 = none before the first). */
export function pauseBefore(attempt: number): Promise<void> {
  if (attempt === 0) return Promise.resolve();
  const ms = Math.random() * Math.min(MAX_PAUSE_MS, BASE_PAUSE_MS * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `attempt` until it returns, retrying (after `pauseBefore`) while it throws an error that
 * `isRace` recognizes and attempts remain; the last race error is passed to `exhausted` for the
 * caller's answer (a 409). Any other error is thrown at once.
 */
export async function retryRaces<T>(
  attempt: (n: number) => Promise<T>,
  isRace: (err: unknown) => boolean,
  exhausted: (err: unknown) => Error,
  attempts = COMMIT_ATTEMPTS,
): Promise<T> {
  for (let n = 0; ; n++) {
    await pauseBefore(n);
    try {
      return await attempt(n);
    } catch (err) {
      if (!isRace(err)) throw err;
      if (n + 1 >= attempts) throw exhausted(err);
    }
  }
}
