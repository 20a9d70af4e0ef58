import type { RequestContext } from "../../lib/context";
import { emailTransport, type EmailOutcome, type EmailTransport, type OutboxEmail } from "../../providers/email";
import { outboxFailedUpdate, outboxHeldUpdate, outboxSentUpdate } from "./repository";

const MAX_ERROR_CHARS = 500;
/** Workers keep at most 6 outgoing connections open per invocation. */
const CONCURRENCY = 6;
/** No delivery starts after this long in a sender's request; the rest waits for the retry job. */
const REQUEST_BUDGET_MS = 10_000;

/** Tries per email, the first included; then the row stays `failed` for good. */
export const MAX_EMAIL_ATTEMPTS = 5;
/** Wait before the retry that follows the n-th failed attempt (n = 1…4). */
export const EMAIL_RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000] as const;

/** An email and the attempts already recorded on its row (the guard of its outcome's update). */
export type Delivery = { email: OutboxEmail; attempts: number };

/**
 * Hands emails that were just committed to the outbox to the transport and records each outcome on
 * its row. Delivery never undoes the change that queued the email: a transport that throws or
 * refuses leaves the row `failed` with the reason, still listed with its text and link, and the cron
 * (src/jobs/retry-emails.ts) tries it again where that may succeed. Up to 6 at once; none starts
 * after 10 s (a slow provider must not hold a send for minutes): those stay `queued` for the job.
 */
export async function deliverEmails(ctx: RequestContext, input: { emails: OutboxEmail[]; transport?: EmailTransport }): Promise<EmailOutcome[]> {
  const transport = input.transport ?? emailTransport(ctx.env);
  return deliverAll(ctx, { deliveries: input.emails.map((email) => ({ email, attempts: 0 })), transport, budgetMs: REQUEST_BUDGET_MS });
}

/**
 * Delivers and records, for the request path and the retry job alike. Each update is guarded on the
 * row not being `sent` and on the attempts read before, so of two deliverers of one row only the
 * first outcome is recorded, and an outcome never overwrites a success. A delivery not started
 * within the budget answers `queued` and leaves its row as it was.
 */
export async function deliverAll(
  ctx: RequestContext,
  input: { deliveries: Delivery[]; transport: EmailTransport; budgetMs: number; now?: () => Date },
): Promise<EmailOutcome[]> {
  const { deliveries, transport, ...opts } = input;
  const db = ctx.db;
  const clock = opts.now ?? (() => new Date());
  const deadline = Date.now() + opts.budgetMs;
  const outcomes: EmailOutcome[] = new Array(deliveries.length);
  const updates: D1PreparedStatement[] = [];
  let next = 0;
  const worker = async () => {
    while (next < deliveries.length) {
      const i = next++;
      const delivery = deliveries[i]!;
      if (Date.now() > deadline) {
        outcomes[i] = { status: "queued" };
        continue;
      }
      let outcome: EmailOutcome;
      try {
        outcome = await transport.deliver(delivery.email);
      } catch (err) {
        outcome = { status: "failed", error: err instanceof Error ? err.message : String(err) };
      }
      outcomes[i] = outcome;
      const update = recordOutcome(db, delivery, outcome, clock());
      if (update) updates.push(update);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, deliveries.length) }, worker));
  if (updates.length) await recordOutcomes(db, updates);
  return outcomes;
}

/** Tries of the write that records what the transport answered. */
const RECORD_TRIES = 3;

/**
 * Writes the outcomes, trying again when the database fails for a moment: an email that went out but
 * was not recorded as sent stays due, and the retry job would send it a second time. Each update is
 * guarded on the attempts read before, so a try that landed before its error reached us changes
 * nothing when it runs again.
 */
async function recordOutcomes(db: D1Database, updates: D1PreparedStatement[]): Promise<void> {
  for (let tried = 1; ; tried++) {
    try {
      await db.batch(updates);
      return;
    } catch (err) {
      if (tried >= RECORD_TRIES) throw err;
      await scheduler.wait(50 * tried);
    }
  }
}

/**
 * The row's update for one outcome; none for `queued` (the row stays as it is). An email delivered,
 * or never to be tried again, drops its sealed link (`link_sealed = NULL`): the row keeps the email
 * with the link withheld, and not even EMBED_TOKEN_SECRET recovers it (./link-at-rest.ts).
 */
function recordOutcome(db: D1Database, { email, attempts }: Delivery, outcome: EmailOutcome, now: Date): D1PreparedStatement | null {
  if (outcome.status === "sent") return outboxSentUpdate(db, email.id, attempts, now.toISOString());
  if (outcome.status !== "failed") return null;
  const error = outcome.error.slice(0, MAX_ERROR_CHARS);
  if (outcome.retry === "when_configured") {
    // Not an attempt: nothing left the service. Due again at once, i.e. as soon as the job can send.
    return outboxHeldUpdate(db, email.id, attempts, error, now.toISOString());
  }
  const made = attempts + 1;
  const retryAt = outcome.retry === "never" || made >= MAX_EMAIL_ATTEMPTS ? null : new Date(now.getTime() + EMAIL_RETRY_DELAYS_MS[made - 1]!).toISOString();
  return outboxFailedUpdate(db, email.id, attempts, error, retryAt);
}
