import type { OrgContext } from "../../lib/context";
import type { OutboxEmail } from "../../providers/email";
import { envelopeReminderMarkUpdate, reminderMarkCondition, type ReminderDueRow, type ReminderMark } from "../envelopes/repository";
import { challengedSignerIds } from "../kba/repository";
import { listSigners, signersWhoseTurnItIs } from "../signers/repository";
import { deliverEmails } from "./deliver";
import { reminderEmails } from "./reminder";

/**
 * Sends what is due for one open envelope (jobs/send-reminders.ts): a reminder, or the expiry warning,
 * to each signer whose turn it is and who has not finished, each email carrying a re-issued signing
 * link. When both are due the expiry warning alone goes and counts as the reminder (two emails in one
 * minute would each re-issue the link, and the first would not open). Nothing goes for an envelope
 * sent with `send_email: false` (the partner hands out the links); it is still marked, so it is not
 * read again every minute. Links, emails and the envelope's mark (`reminders_sent`, `last_reminder_at`,
 * `expiry_warned_at`) commit in one batch, every statement guarded on the reminder columns as read:
 * of two overlapping runs only one sends. Returns the emails this call queued.
 */
export async function remindSigners(ctx: OrgContext, input: { due: ReminderDueRow; now: string }): Promise<OutboxEmail[]> {
  const { due, now } = input;
  const db = ctx.db;
  const mark: ReminderMark = { envelopeId: due.id, now, remindersSent: due.reminders_sent, lastReminderAt: due.last_reminder_at, expiryWarnedAt: due.expiry_warned_at };
  const sent = { reminder: due.reminder_due === 1, warning: due.warning_due === 1 };
  const guard = reminderMarkCondition(mark);
  const metadata = JSON.parse(due.metadata) as Record<string, unknown>;
  const signers = metadata.send_email === false ? [] : signersWhoseTurnItIs(await listSigners(db, due.id)).filter((s) => s.status !== "completed" && s.status !== "declined");
  const queued =
    signers.length === 0
      ? []
      : await reminderEmails(ctx, {
          kind: sent.warning ? "expiry_warning" : "reminder",
          envelope: due,
          orgName: due.org_name,
          signers,
          at: now,
          guard,
          kbaSignerIds: due.kba_required === 1 ? await challengedSignerIds(db, due.id) : undefined,
        });
  const results = await db.batch<{ id: string }>([...queued.flatMap((q) => [q.issueLink, q.statement]), envelopeReminderMarkUpdate(db, mark, sent)]);
  const fresh = queued.filter((_, i) => (results[2 * i + 1]?.results.length ?? 0) > 0).map((q) => q.email);
  await deliverEmails(ctx, { emails: fresh });
  return fresh;
}
