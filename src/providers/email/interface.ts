/** One email of the outbox (`email_outbox`), as a transport receives it. */
export type OutboxEmail = {
  id: string;
  /** what the email is (`invitation`): the provider's tag */
  kind: string;
  to: { email: string; name: string };
  subject: string;
  text: string;
  html: string;
};

/**
 * What a transport did with one email: the provider accepted it (`sent`), refused it or could not be
 * reached (`failed`, with the reason), or the transport left it in the outbox (`queued`).
 *
 * `retry` says what the cron retry job (src/jobs/retry-emails.ts) may do with a failure:
 * - `backoff` (the default): a transient failure (timeout, network, 5xx, 401, 429): tried again later,
 *   up to the attempt limit;
 * - `never`: the provider refused this email for good (Postmark ErrorCode 300 invalid address,
 *   406 inactive recipient): sending it again cannot succeed;
 * - `when_configured`: the transport is not configured (a variable is missing); the attempt does not
 *   count, and the row goes out once the operator sets the variable.
 */
export type EmailOutcome =
  | { status: "sent" }
  | { status: "failed"; error: string; retry?: "backoff" | "never" | "when_configured" }
  | { status: "queued" };

/**
 * The way out for the email outbox. Every email is a row in `email_outbox` before any transport sees
 * it, committed with the change that caused it; the transport is handed the new rows after that
 * commit, while the request that queued them waits, and its outcome is recorded on the row. A throw
 * counts as `failed` (retried with backoff). The outbox is the record either way: a failed or
 * never-delivered email stays listed with its text and link, and the cron retries what may succeed.
 *
 * Implementations: `OutboxOnlyTransport` (development only: nothing leaves the service; the dev page
 * GET /dev/emails shows the mail), `PostmarkTransport` (Postmark's HTTP API over `fetch`), and
 * `NotConfiguredTransport` (a transport was chosen but a variable it needs is missing, or production
 * has no transport). One is chosen
 * in `emailTransport()`. A transport must answer within a few seconds: the sender's request waits.
 */
export interface EmailTransport {
  deliver(email: OutboxEmail): Promise<EmailOutcome>;
}
