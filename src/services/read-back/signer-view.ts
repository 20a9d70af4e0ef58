import type { KbaCheckStatus } from "../../db/schema";
import { addDays } from "../../lib/time";
import type { SignerRow } from "../signers/repository";
import type { READ_BACK_SIGNER_STATUSES } from "./schema";

export type ReadBackSignerStatus = (typeof READ_BACK_SIGNER_STATUSES)[number];

/** A signer as the detail statement reads it: the row's columns, its KBA check's status and its decline (from the chain). */
export type SignerFacts = Pick<SignerRow, "id" | "name" | "email" | "role" | "routing_order" | "status" | "viewed_at" | "signed_at" | "created_at" | "consent_given_at" | "phone"> & {
  kba_status: KbaCheckStatus | null;
  /** whether the signer has a passcode step (1/0 from SQL), and when they verified */
  otp?: number | boolean;
  otp_verified_at?: string | null;
  declined_at: string | null;
  decline_reason: string | null;
};

/**
 * When it became the signer's turn: signers are attached by the send (their `created_at`), so the first
 * routing order's turn is the send; a later order's comes when every earlier signer has completed (the
 * last of those completions: inviteNextSigners invites it in that signer's batch). Null while an earlier
 * signer has not completed, which after a decline is for good.
 */
export function turnCameAt(signer: Pick<SignerFacts, "routing_order" | "created_at">, all: Pick<SignerFacts, "routing_order" | "status" | "signed_at">[]): string | null {
  const earlier = all.filter((s) => s.routing_order < signer.routing_order);
  if (earlier.some((s) => s.status !== "completed" || s.signed_at === null)) return null;
  return [signer.created_at, ...earlier.map((s) => s.signed_at!)].sort().at(-1)!;
}

/** The partner's view of a signer's status: the stored one, with `pending` split by whether their turn has come (`started` shows as `viewed`). */
export function readBackStatus(signer: Pick<SignerFacts, "status" | "viewed_at">, sentAt: string | null): ReadBackSignerStatus {
  if (signer.status === "completed" || signer.status === "declined") return signer.status;
  if (signer.status === "viewed" || signer.status === "started" || signer.viewed_at !== null) return "viewed";
  return sentAt !== null ? "sent" : "pending";
}

/**
 * The reminder schedule in force and the next one due, as jobs/send-reminders.ts decides it
 * (envelopes/repository.ts `listEnvelopesDueForReminders`): the envelope's own days, else the
 * organization's; none without `after_days`. Only an open envelope (`sent`/`viewed`, before
 * `expires_at`) gets reminders; it was sent `expires_in_days` before `expires_at`; the first is due
 * `after_days` after that, each next one `every_days` after the last (never when 0). One that would
 * fall at or after `expires_at` is never sent.
 */
export function reminderSchedule(
  envelope: {
    status: string;
    expires_at: string | null;
    expires_in_days: number;
    reminder_after_days: number | null;
    reminder_every_days: number | null;
    reminders_sent: number;
    last_reminder_at: string | null;
  },
  orgDefaults: { after_days: number | null; every_days: number | null },
  now: string,
): { after_days: number; every_days: number; next_at: string | null } | null {
  const after = envelope.reminder_after_days ?? orgDefaults.after_days;
  if (after === null) return null;
  const every = envelope.reminder_every_days ?? orgDefaults.every_days ?? 0;
  let next: string | null = null;
  const open = (envelope.status === "sent" || envelope.status === "viewed") && envelope.expires_at !== null && envelope.expires_at > now;
  if (open) {
    if (envelope.reminders_sent === 0) next = addDays(envelope.expires_at!, after - envelope.expires_in_days);
    else if (every > 0 && envelope.last_reminder_at !== null) next = addDays(envelope.last_reminder_at, every);
    if (next !== null && next >= envelope.expires_at!) next = null;
  }
  return { after_days: after, every_days: every, next_at: next };
}
