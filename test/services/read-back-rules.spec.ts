import { describe, expect, it } from "vitest";
import { readBackStatus, reminderSchedule, turnCameAt } from "../../src/services/read-back/signer-view";
import type { SignerStatus } from "../../src/services/signers/repository";

const SENT = "2026-11-01T10:00:00.000Z";
const open = { status: "sent", expires_at: "2026-12-01T10:00:00.000Z", expires_in_days: 30, reminder_after_days: 2, reminder_every_days: 3, reminders_sent: 0, last_reminder_at: null };
const none = { after_days: null, every_days: null };

describe("the reminder schedule the envelope read shows (the reminder cron's rule)", () => {
  it("the first reminder after_days after the send, the next every_days after the last", () => {
    expect(reminderSchedule(open, none, SENT)).toEqual({ after_days: 2, every_days: 3, next_at: "2026-11-03T10:00:00.000Z" });
    const after = { ...open, reminders_sent: 1, last_reminder_at: "2026-11-03T10:05:00.000Z" };
    expect(reminderSchedule(after, none, SENT)!.next_at).toBe("2026-11-06T10:05:00.000Z");
  });

  it("none after the last when every_days is 0, none at or after expiry, none on a closed or unsent envelope", () => {
    expect(reminderSchedule({ ...open, reminder_every_days: 0, reminders_sent: 1, last_reminder_at: "2026-11-03T10:00:00.000Z" }, none, SENT)!.next_at).toBeNull();
    expect(reminderSchedule({ ...open, reminders_sent: 1, last_reminder_at: "2026-11-29T10:00:00.000Z" }, none, SENT)!.next_at).toBeNull();
    for (const status of ["pending", "completed", "declined", "voided", "expired"]) expect(reminderSchedule({ ...open, status }, none, SENT)!.next_at, status).toBeNull();
    expect(reminderSchedule(open, none, "2026-12-01T10:00:00.000Z")!.next_at).toBeNull();
  });

  it("falls back to the organization's days one by one; no after_days anywhere: no schedule", () => {
    expect(reminderSchedule({ ...open, reminder_after_days: null, reminder_every_days: null }, { after_days: 4, every_days: 1 }, SENT)).toMatchObject({ after_days: 4, every_days: 1 });
    expect(reminderSchedule({ ...open, reminder_every_days: null }, none, SENT)).toMatchObject({ after_days: 2, every_days: 0 });
    expect(reminderSchedule({ ...open, reminder_after_days: null }, none, SENT)).toBeNull();
  });
});

describe("a signer's turn and status as the envelope read shows them", () => {
  const signer = (routing_order: number, status: SignerStatus, signed_at: string | null = null) => ({ routing_order, status, signed_at, created_at: SENT, viewed_at: null });

  it("the first order's turn is the send; a later order's is the last completion before it; parallel signers share a turn", () => {
    const all = [signer(1, "completed", "2026-11-02T09:00:00.000Z"), signer(1, "completed", "2026-11-02T11:00:00.000Z"), signer(2, "pending"), signer(3, "pending")];
    expect(turnCameAt(all[0]!, all)).toBe(SENT);
    expect(turnCameAt(all[2]!, all)).toBe("2026-11-02T11:00:00.000Z");
    expect(turnCameAt(all[3]!, all)).toBeNull();
    expect(readBackStatus(all[2]!, turnCameAt(all[2]!, all))).toBe("sent");
    expect(readBackStatus(all[3]!, null)).toBe("pending");
  });

  it("a decline before a signer's turn leaves them pending for good; started reads as viewed", () => {
    const all = [signer(1, "declined"), signer(2, "pending")];
    expect(turnCameAt(all[1]!, all)).toBeNull();
    expect(readBackStatus(all[0]!, SENT)).toBe("declined");
    expect(readBackStatus({ status: "started", viewed_at: SENT }, SENT)).toBe("viewed");
  });
});
