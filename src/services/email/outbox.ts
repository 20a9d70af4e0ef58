import type { RequestContext } from "../../lib/context";
import type { EmailKind, EmailStatus } from "../../db/schema";
import { newId } from "../../lib/ids";
import type { OutboxEmail } from "../../providers/email";

export type NewEmail = {
  orgId: string;
  envelopeId: string | null;
  signerId: string | null;
  kind: EmailKind;
  to: { email: string; name: string };
  subject: string;
  text: string;
  html: string;
  linkUrl: string | null;
  at: string;
};

/**
 * The INSERT of one email into the outbox, for the batch of the change that causes it. A second
 * email of the same kind to the same signer is skipped (unique index); `RETURNING id` then yields no
 * row, which is how a caller learns whether this statement queued anything.
 */
export function queueEmail(db: D1Database, input: NewEmail): { email: OutboxEmail; statement: D1PreparedStatement } {
  const email: OutboxEmail = { id: newId("email"), kind: input.kind, to: input.to, subject: input.subject, text: input.text, html: input.html };
  const statement = db
    .prepare(
      `INSERT INTO email_outbox (id, org_id, envelope_id, signer_id, kind, to_email, to_name, subject, text, html, link_url, status, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?)
       ON CONFLICT (signer_id, kind) DO NOTHING RETURNING id`,
    )
    .bind(email.id, input.orgId, input.envelopeId, input.signerId, input.kind, input.to.email, input.to.name, input.subject, input.text, input.html, input.linkUrl, input.at);
  return { email, statement };
}

export type OutboxRow = {
  id: string;
  org_id: string;
  envelope_id: string | null;
  signer_id: string | null;
  kind: EmailKind;
  to_email: string;
  to_name: string;
  subject: string;
  text: string;
  html: string;
  link_url: string | null;
  status: EmailStatus;
  created_at: string;
  sent_at: string | null;
  error: string | null;
  attempts: number;
  next_attempt_at: string | null;
};

/** The newest emails of every organization (the dev page; never reachable in production). */
export async function listRecentEmails(ctx: RequestContext, input: { limit: number }): Promise<OutboxRow[]> {
  const limit = input.limit;
  const { results } = await ctx.db.prepare("SELECT * FROM email_outbox ORDER BY created_at DESC, rowid DESC LIMIT ?").bind(limit).all<OutboxRow>();
  return results;
}
