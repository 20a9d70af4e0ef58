import type { Row } from "../../db/row";
import type { EmailKind, emailOutbox } from "../../db/schema/email";

/** Statements on `email_outbox`. */

/**
 * An `email_outbox` row. `link_url` is the link withheld (`…/s/[slug]`; a row written before links
 * were sealed holds it in the clear); `link_sealed` the link sealed, until the email is delivered or
 * will never be (then NULL).
 */
export type OutboxRow = Row<typeof emailOutbox>;

/**
 * The INSERT of one email, as stored (link withheld and sealed). A second email of the same kind to the
 * same signer is skipped (unique index); `RETURNING id` then yields no row, which is how a caller learns
 * whether this statement queued anything.
 */
export function emailOutboxInsert(
  db: D1Database,
  e: { id: string; orgId: string; envelopeId: string | null; signerId: string | null; kind: EmailKind; to: { email: string; name: string }; text: string; html: string; subject: string; linkShown: string | null; linkSealed: string | null; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO email_outbox (id, org_id, envelope_id, signer_id, kind, to_email, to_name, subject, text, html, link_url, link_sealed, status, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?)
       ON CONFLICT (signer_id, kind) DO NOTHING RETURNING id`,
    )
    .bind(e.id, e.orgId, e.envelopeId, e.signerId, e.kind, e.to.email, e.to.name, e.subject, e.text, e.html, e.linkShown, e.linkSealed, e.at);
}

/** The newest emails of every organization (the dev page). */
export async function listRecentOutbox(db: D1Database, limit: number): Promise<OutboxRow[]> {
  return (await db.prepare("SELECT * FROM email_outbox ORDER BY created_at DESC, rowid DESC LIMIT ?").bind(limit).all<OutboxRow>()).results;
}

// ---- delivery outcomes (email/deliver.ts), each guarded on the row not `sent` and on the attempts read before ----

/** Delivered: the sealed link is dropped (the row keeps the email with the link withheld). */
export function outboxSentUpdate(db: D1Database, emailId: string, attempts: number, now: string): D1PreparedStatement {
  return db
    .prepare("UPDATE email_outbox SET status = 'sent', sent_at = ?, attempts = attempts + 1, next_attempt_at = NULL, error = NULL, link_sealed = NULL WHERE id = ? AND status != 'sent' AND attempts = ?")
    .bind(now, emailId, attempts);
}

/** Not an attempt (nothing left the service): `failed`, due again at `dueAt`, attempts unchanged. */
export function outboxHeldUpdate(db: D1Database, emailId: string, attempts: number, error: string, dueAt: string): D1PreparedStatement {
  return db.prepare("UPDATE email_outbox SET status = 'failed', error = ?, next_attempt_at = ? WHERE id = ? AND status != 'sent' AND attempts = ?").bind(error, dueAt, emailId, attempts);
}

/** A failed attempt: retried at `retryAt`, or never (NULL), which also drops the sealed link. */
export function outboxFailedUpdate(db: D1Database, emailId: string, attempts: number, error: string, retryAt: string | null): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE email_outbox SET status = 'failed', error = ?1, attempts = attempts + 1, next_attempt_at = ?2,
         link_sealed = CASE WHEN ?2 IS NULL THEN NULL ELSE link_sealed END WHERE id = ?3 AND status != 'sent' AND attempts = ?4`,
    )
    .bind(error, retryAt, emailId, attempts);
}

// ---- the retry job (jobs/retry-emails.ts) ----

export type DueEmailRow = Pick<OutboxRow, "id" | "kind" | "to_email" | "to_name" | "subject" | "text" | "html" | "link_url" | "link_sealed" | "attempts"> & {
  envelope_status: string | null;
};

/**
 * The emails due for another try, oldest first: `failed` rows whose `next_attempt_at` has come, and
 * `queued` rows created in (`queuedAfter`, `queuedBefore`] not claimed ahead of `at`; each with its
 * envelope's status.
 */
export async function listDueEmails(db: D1Database, due: { at: string; queuedBefore: string; queuedAfter: string; limit: number }): Promise<DueEmailRow[]> {
  const { results } = await db
    .prepare(
      `SELECT o.id, o.kind, o.to_email, o.to_name, o.subject, o.text, o.html, o.link_url, o.link_sealed, o.attempts, e.status AS envelope_status
     FROM email_outbox o LEFT JOIN envelopes e ON e.id = o.envelope_id
     WHERE (o.status = 'failed' AND o.next_attempt_at <= ?1)
        OR (o.status = 'queued' AND o.created_at <= ?2 AND o.created_at > ?3 AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?1))
     ORDER BY o.created_at LIMIT ?4`,
    )
    .bind(due.at, due.queuedBefore, due.queuedAfter, due.limit)
    .all<DueEmailRow>();
  return results;
}

/** Gives up on an email that will not be sent (`why`): `failed` for good, its seal dropped. */
export function outboxUnsendableUpdate(db: D1Database, emailId: string, attempts: number, why: string): D1PreparedStatement {
  return db
    .prepare("UPDATE email_outbox SET status = 'failed', error = ?, next_attempt_at = NULL, link_sealed = NULL WHERE id = ? AND attempts = ? AND status != 'sent'")
    .bind(why, emailId, attempts);
}

/** Claims an email for one delivery attempt until `claimUntil` (`RETURNING id`: no row when another run holds it). */
export function outboxClaim(db: D1Database, emailId: string, attempts: number, claimUntil: string, at: string): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE email_outbox SET next_attempt_at = ?1 WHERE id = ?2 AND attempts = ?3 AND status IN ('queued', 'failed')
           AND (next_attempt_at IS NULL OR next_attempt_at <= ?4) RETURNING id`,
    )
    .bind(claimUntil, emailId, attempts, at);
}

/**
 * The INSERT of a reminder or expiry warning (jobs/send-reminders.ts), only while `guard` (a condition
 * on the envelope, from `reminderMarkCondition`) holds and the signer `forSignerId` has not finished.
 * `signerId` is what the row records: null for a reminder, which a signer may get more than once (the
 * unique (signer, kind) index ignores nulls); the signer for an expiry warning, once per signer.
 * `RETURNING id`: no row when nothing was queued.
 */
export function emailOutboxInsertIf(
  db: D1Database,
  e: Parameters<typeof emailOutboxInsert>[1],
  cond: { forSignerId: string; guard: { sql: string; binds: (string | number | null)[] } },
): D1PreparedStatement {
  // SQL exception: the email is queued in the batch that records it on the envelope, under that batch's guard.
  return db
    .prepare(
      `INSERT INTO email_outbox (id, org_id, envelope_id, signer_id, kind, to_email, to_name, subject, text, html, link_url, link_sealed, status, created_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?
       WHERE EXISTS (${cond.guard.sql}) AND EXISTS (SELECT 1 FROM signers WHERE id = ? AND status NOT IN ('completed', 'declined'))
       ON CONFLICT (signer_id, kind) DO NOTHING RETURNING id`,
    )
    .bind(e.id, e.orgId, e.envelopeId, e.signerId, e.kind, e.to.email, e.to.name, e.subject, e.text, e.html, e.linkShown, e.linkSealed, e.at, ...cond.guard.binds, cond.forSignerId);
}
