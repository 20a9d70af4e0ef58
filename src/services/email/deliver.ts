import type { Env } from "../../env";
import { nowIso } from "../../lib/time";
import { emailTransport, type EmailOutcome, type EmailTransport, type OutboxEmail } from "../../providers/email";

const MAX_ERROR_CHARS = 500;

/**
 * Hands emails that were just committed to the outbox to the transport, one at a time, and records
 * each outcome on its row. Delivery never undoes the change that queued the email: a transport that
 * throws or refuses leaves the row `failed` with the reason, still listed with its text and link.
 * The updates are guarded on `queued`, so an outcome never overwrites one recorded before it.
 */
export async function deliverEmails(env: Env, emails: OutboxEmail[], transport: EmailTransport = emailTransport(env)): Promise<EmailOutcome[]> {
  const outcomes: EmailOutcome[] = [];
  const updates: D1PreparedStatement[] = [];
  for (const email of emails) {
    let outcome: EmailOutcome;
    try {
      outcome = await transport.deliver(email);
    } catch (err) {
      outcome = { status: "failed", error: err instanceof Error ? err.message : String(err) };
    }
    outcomes.push(outcome);
    if (outcome.status === "sent") {
      updates.push(env.DB.prepare("UPDATE email_outbox SET status = 'sent', sent_at = ? WHERE id = ? AND status = 'queued'").bind(nowIso(), email.id));
    } else if (outcome.status === "failed") {
      updates.push(env.DB.prepare("UPDATE email_outbox SET status = 'failed', error = ? WHERE id = ? AND status = 'queued'").bind(outcome.error.slice(0, MAX_ERROR_CHARS), email.id));
    }
  }
  if (updates.length) await env.DB.batch(updates);
  return outcomes;
}
