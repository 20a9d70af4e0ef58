/** One email of the outbox (`email_outbox`), as a transport receives it. */
export type OutboxEmail = {
  id: string;
  to: { email: string; name: string };
  subject: string;
  text: string;
  html: string;
};

/**
 * What a transport did with one email: the provider accepted it (`sent`), refused it (`failed`, with
 * the reason), or the transport left it in the outbox (`queued`).
 */
export type EmailOutcome = { status: "sent" } | { status: "failed"; error: string } | { status: "queued" };

/**
 * The way out for the email outbox. Every email is a row in `email_outbox` before any transport sees
 * it, committed with the change that caused it; the transport is handed the new rows after that
 * commit, while the request that queued them waits, and its outcome is recorded on the row. A throw
 * counts as `failed`. The outbox is the record either way: a failed or never-delivered email stays
 * listed with its text and link.
 *
 * Only `OutboxOnlyTransport` exists (the default: nothing leaves the service; the dev page
 * GET /dev/emails shows the mail). A production transport (an email API over `fetch`) implements this
 * interface and is chosen in `emailTransport()`; it should answer within a few seconds, as the sender's
 * request waits for it.
 */
export interface EmailTransport {
  deliver(email: OutboxEmail): Promise<EmailOutcome>;
}
