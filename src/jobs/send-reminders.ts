import { inOrg, type RequestContext } from "../lib/context";
import { ApiError } from "../lib/errors";
import { listEnvelopesDueForReminders } from "../services/envelopes/repository";
import { remindSigners } from "../services/email/remind-signers";

/** Envelopes handled per run: the rest wait for the next minute. */
export const SEND_REMINDERS_BATCH = 50;

/**
 * Every minute (DESIGN.md 12): reminders and expiry warnings. For each open (`sent`/`viewed`, not past
 * `expires_at`) envelope with one due, the most pressing deadline first, at most 50 per run: the first
 * reminder `reminder_after_days` after sending, then one every `reminder_every_days` (0: once), the
 * envelope's own schedule or else its organization's (none when neither sets `reminder_after_days`);
 * the expiry warning once, 2 days before `expires_at`. Each goes to the signers whose turn it is and
 * who have not finished, with a re-issued signing link (services/email/remind-signers.ts). A completed,
 * declined, voided or expired envelope gets nothing; two overlapping runs send once.
 */
export async function sendReminders(ctx: RequestContext, now = new Date()): Promise<{ envelopes: number; emails: number }> {
  const at = now.toISOString();
  const due = await listEnvelopesDueForReminders(ctx.db, at, SEND_REMINDERS_BATCH);
  let envelopes = 0;
  let emails = 0;
  for (const row of due) {
    try {
      const sent = await remindSigners(inOrg(ctx, row.org_id), { due: row, now: at });
      envelopes += 1;
      emails += sent.length;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  return { envelopes, emails };
}
