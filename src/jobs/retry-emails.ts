import type { RequestContext } from "../lib/context";
import { emailTransport, emailTransportConfig } from "../providers/email";
import { deliverAll, type Delivery } from "../services/email/deliver";
import { openOutboxEmail } from "../services/email/outbox";
import { listDueEmails, outboxClaim, outboxUnsendableUpdate, type DueEmailRow } from "../services/email/repository";

const BATCH = 50;
/** A `queued` row this old was never handed to the transport: its sender died between commit and delivery. */
const STALE_QUEUED_MS = 5 * 60_000;
/**
 * A `queued` row older than this is left alone: it was queued under the outbox-only transport, so
 * switching `EMAIL_TRANSPORT` to postmark does not mail the whole backlog of past invitations.
 */
const STALE_QUEUED_MAX_AGE_MS = 24 * 60 * 60_000;
/** A claimed row is left alone this long; a job that dies mid-delivery only delays it. */
const CLAIM_MS = 2 * 60_000;
/** The cron runs every minute; delivery stops starting new emails after this. */
const BUDGET_MS = 40_000;

/** An email carrying a signing link (an invitation, a reminder, an expiry warning) is worth sending only while its envelope can still be signed. */
const OPEN_FOR_SIGNING = new Set(["sent", "viewed"]);
const SIGNING_LINK_KINDS: ReadonlySet<string> = new Set(["invitation", "reminder", "expiry_warning"]);

/**
 * Every minute: re-delivers the outbox emails that did not go out, oldest first, 50 per run. Due are
 * `failed` rows whose `next_attempt_at` has come (transient failures back off 1 m, 5 m, 30 m, 2 h;
 * five attempts in all; a permanent refusal has none) and `queued` rows older than 5 minutes (a crash
 * between commit and delivery, or a request that ran out of time; not older than a day: rows queued
 * under the outbox-only transport are not mailed when the transport changes). An invitation whose
 * envelope is no longer `sent`/`viewed` (voided, expired, completed, declined) is not sent: its row
 * stays `failed` naming the status, never retried; so is an email whose sealed link does not open
 * (EMBED_TOKEN_SECRET changed since it was queued: there is no link to send). Both drop the seal.
 * Each row is claimed first
 * (`next_attempt_at` moved 2 minutes ahead, guarded on its attempts), so two runs, or a run and a
 * sender, never send one attempt twice.
 *
 * With the outbox-only transport it does nothing (rows stay `queued`, as meant). With a transport
 * that lacks a variable it sends nothing and fails the job naming it, so the misconfiguration shows
 * in the cron's logs every minute while the held emails wait, attempts untouched.
 */
export async function retryEmails(ctx: RequestContext, now = new Date()): Promise<{ retried: number }> {
  const { env, db } = ctx;
  const config = emailTransportConfig(env);
  if (config.kind === "outbox") return { retried: 0 };
  if (config.kind === "not_configured") throw new Error(config.problem);

  const at = now.toISOString();
  const results = await listDueEmails(db, {
    at,
    queuedBefore: new Date(now.getTime() - STALE_QUEUED_MS).toISOString(),
    queuedAfter: new Date(now.getTime() - STALE_QUEUED_MAX_AGE_MS).toISOString(),
    limit: BATCH,
  });
  if (results.length === 0) return { retried: 0 };

  const isClosed = (r: DueEmailRow) => SIGNING_LINK_KINDS.has(r.kind) && r.envelope_status !== null && !OPEN_FOR_SIGNING.has(r.envelope_status);
  const due = await Promise.all(results.map(async (row) => ({ row, email: isClosed(row) ? null : await openOutboxEmail(env, row) })));
  const unsendable = due.filter((d) => d.email === null).map(({ row }) => ({
    row,
    why: isClosed(row) ? `Not sent: the envelope is ${row.envelope_status}` : "Not sent: its sealed link does not open (EMBED_TOKEN_SECRET changed since it was queued)",
  }));
  if (unsendable.length > 0) {
    await db.batch(unsendable.map(({ row, why }) => outboxUnsendableUpdate(db, row.id, row.attempts, why)));
  }
  const open = due.flatMap(({ row, email }) => (email ? [{ row, email }] : []));
  if (open.length === 0) return { retried: 0 };

  const claimUntil = new Date(now.getTime() + CLAIM_MS).toISOString();
  const claims = await db.batch<{ id: string }>(open.map(({ row: r }) => outboxClaim(db, r.id, r.attempts, claimUntil, at)));
  const claimed: Delivery[] = open
    .filter((_, i) => (claims[i]?.results.length ?? 0) > 0)
    .map(({ row: r, email }) => ({ email: { id: r.id, kind: r.kind, to: { email: r.to_email, name: r.to_name }, subject: r.subject, text: email.text, html: email.html }, attempts: r.attempts }));
  if (claimed.length === 0) return { retried: 0 };
  // Outcomes are timed from the run's clock, so a test's `now` drives the backoff as the cron's does.
  const started = Date.now();
  await deliverAll(ctx, { deliveries: claimed, transport: emailTransport(env, config), budgetMs: BUDGET_MS, now: () => new Date(now.getTime() + (Date.now() - started)) });
  return { retried: claimed.length };
}
