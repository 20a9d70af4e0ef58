export type RetryOptions = {
  /** Attempts in all, the first included (default 4). 1 turns retrying off. */
  maxAttempts?: number;
  /** No single wait is longer than this (default 60 000 ms); a longer Retry-After is not waited for. */
  maxDelayMs?: number;
  /** Waits (default setTimeout); a test passes its own to record the waits. */
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) (default Math.random): the jitter. */
  random?: () => number;
};

/** The statuses a retry can clear: the key's rate limit, and the service unavailable for a while. */
export const RETRYABLE_STATUSES = new Set([429, 503]);

/**
 * How long to wait before attempt `attempt + 1`: the answer's Retry-After (seconds, or an HTTP date)
 * when it has one, else an exponential back-off from 500 ms; plus up to 20% of jitter on top, so the
 * clients a limit stopped together do not come back together. Never less than Retry-After asked for.
 * Null when the wait asked for exceeds `maxDelayMs`: the caller gives up instead of sleeping for
 * minutes; the jitter itself stops at `maxDelayMs`.
 */
export function retryDelayMs(retryAfter: string | null, attempt: number, opts: { maxDelayMs: number; random: () => number }): number | null {
  let base = 500 * 2 ** (attempt - 1);
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) base = seconds * 1000;
    else if (!Number.isNaN(Date.parse(retryAfter))) base = Math.max(0, Date.parse(retryAfter) - Date.now());
  }
  if (base > opts.maxDelayMs) return null;
  return Math.min(opts.maxDelayMs, Math.round(base + base * 0.2 * opts.random()));
}

/**
 * A fetch that retries 429 and 503 after the wait `retryDelayMs` names, up to `maxAttempts`. Each
 * attempt sends a clone of the request, so a body is sent whole every time; the request's
 * Idempotency-Key (set before this runs) makes a retried POST safe.
 */
export function retryingFetch(fetcher: (request: Request) => Promise<Response>, opts: RetryOptions = {}): (request: Request) => Promise<Response> {
  const maxAttempts = Math.max(1, opts.maxAttempts ?? 4);
  const maxDelayMs = opts.maxDelayMs ?? 60_000;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = opts.random ?? Math.random;
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= maxAttempts;
      const response = await fetcher(last ? request : request.clone());
      if (last || !RETRYABLE_STATUSES.has(response.status)) return response;
      const delay = retryDelayMs(response.headers.get("Retry-After"), attempt, { maxDelayMs, random });
      if (delay === null) return response;
      await response.body?.cancel();
      await sleep(delay);
    }
  };
}
