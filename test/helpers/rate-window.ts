/**
 * The simple rate limiter (wrangler.toml [[ratelimits]], here miniflare's) counts in fixed windows of
 * its period, aligned to the clock: every count restarts at each whole minute. A test that fills an
 * address's window and expects the next request refused holds only if all of it falls in one window.
 *
 * Rather than sleeping until a window starts (which a loaded machine can still overrun), this runs
 * `attempt` and, if it fails and the minute changed while it ran, runs it again (its premise did not
 * hold, so the failure says nothing); a failure within one window is reported as it is. Each attempt
 * gets its number, to use fresh addresses: an address refused in one attempt may still be remembered
 * (middleware/partner-auth.ts blocks a flooding address for the rest of its window).
 */
export async function inOneWindow(attempt: (n: number) => Promise<void>, periodMs = 60_000, tries = 3): Promise<void> {
  for (let n = 0; ; n++) {
    const window = Math.floor(Date.now() / periodMs);
    try {
      await attempt(n);
      return;
    } catch (err) {
      if (Math.floor(Date.now() / periodMs) === window || n + 1 >= tries) throw err;
    }
  }
}
