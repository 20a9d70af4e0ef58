import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { sendReminders } from "../../src/jobs/send-reminders";
import { remindSigners } from "../../src/services/email/remind-signers";
import { openOutboxEmail } from "../../src/services/email/outbox";
import { listEnvelopesDueForReminders } from "../../src/services/envelopes/repository";
import { call, newTenant, operator } from "../helpers/api";
import { jobContextOf, orgContextOf } from "../helpers/context";
import { invitationSlug, outboxOf, sendableEnvelope, sendEnvelope, type OutboxEmailRow } from "../helpers/signing";
import { signing, TINY_PNG } from "../helpers/signing-flow";
import { orgShardDb, shardDbOf } from "../helpers/shards";

const DAY = 86_400_000;
const MINUTE = 60_000;

const ANN = { role: "buyer", email: "ann@example.com", name: "Ann Buyer", routing_order: 1 };
const COLE = { role: "cosigner", email: "cole@example.com", name: "Cole Signer", routing_order: 2 };

/** A sent buyer (then cosigner) envelope created with `create` (the reminder fields); `sentAt` as the envelope's expiry implies it. */
async function sent(key: string, create: Record<string, unknown> = {}, opts: { parallel?: boolean; solo?: boolean } = {}) {
  const roles = opts.solo ? ["buyer"] : ["buyer", "cosigner"];
  const e = await sendableEnvelope(key, roles, create);
  const signers = opts.solo ? [ANN] : [ANN, { ...COLE, routing_order: opts.parallel ? 1 : 2 }];
  const res = await sendEnvelope(key, e.envelope_id, { signers });
  expect(res.status).toBe(200);
  const row = await shardDbOf(e.envelope_id).prepare("SELECT expires_at, expires_in_days FROM envelopes WHERE id = ?").bind(e.envelope_id).first<{ expires_at: string; expires_in_days: number }>();
  const sentAt = Date.parse(row!.expires_at) - row!.expires_in_days * DAY;
  return { id: e.envelope_id, sentAt, expiresAt: Date.parse(row!.expires_at), invitation: await invitationSlug(e.envelope_id, ANN.email) };
}

const at = (ms: number) => new Date(ms);
const kindOf = (kind: string) => async (envelopeId: string) => (await outboxOf(envelopeId)).filter((m) => m.kind === kind);
const reminders = kindOf("reminder");
const warnings = kindOf("expiry_warning");

/** The slug in an email's link, opened as the transport opens it. */
async function slugOf(row: OutboxEmailRow): Promise<string> {
  const opened = await openOutboxEmail(env, row);
  return new URL(opened!.linkUrl!).pathname.split("/").pop()!;
}

async function runCron(now: Date) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: now.getTime(), cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("send-reminders (cron, every minute)", () => {
  it("reminds the signer whose turn it is after reminder_after_days, then every reminder_every_days, with a link that works and replaces the invitation's", async () => {
    const t = await newTenant();
    const e = await sent(t.key, { reminder_after_days: 3, reminder_every_days: 2 });

    await sendReminders(jobContextOf(e.id), at(e.sentAt + 3 * DAY - MINUTE));
    expect(await reminders(e.id)).toHaveLength(0);

    await runCron(at(e.sentAt + 3 * DAY + MINUTE));
    const first = await reminders(e.id);
    expect(first.map((m) => m.to_email)).toEqual([ANN.email]); // Cole's turn has not come
    expect(first[0]!.subject).toContain("Reminder");
    expect(first[0]!.text).toContain("Ann Buyer");
    // the reminder's link opens the signing page; the invitation's no longer does
    const slug = await slugOf(first[0]!);
    expect((await signing("GET", slug)).status).toBe(200);
    expect((await signing("GET", e.invitation)).status).toBe(404);
    const env1 = await shardDbOf(e.id).prepare("SELECT reminders_sent, last_reminder_at FROM envelopes WHERE id = ?").bind(e.id).first();
    expect(env1).toEqual({ reminders_sent: 1, last_reminder_at: new Date(e.sentAt + 3 * DAY + MINUTE).toISOString() });

    // the same minute again, and a day later: nothing more
    await sendReminders(jobContextOf(e.id), at(e.sentAt + 3 * DAY + MINUTE));
    await sendReminders(jobContextOf(e.id), at(e.sentAt + 4 * DAY + MINUTE));
    expect(await reminders(e.id)).toHaveLength(1);

    // two days after the first: the second
    await sendReminders(jobContextOf(e.id), at(e.sentAt + 5 * DAY + 2 * MINUTE));
    expect(await reminders(e.id)).toHaveLength(2);
    await sendReminders(jobContextOf(e.id), at(e.sentAt + 7 * DAY + 3 * MINUTE));
    expect(await reminders(e.id)).toHaveLength(3);
  });

  it("reminds once when reminder_every_days is 0, and never without a schedule of the envelope or its organization", async () => {
    const t = await newTenant();
    const once = await sent(t.key, { reminder_after_days: 1, reminder_every_days: 0 });
    const none = await sent(t.key);
    for (const d of [1, 2, 5, 10, 20]) await sendReminders(jobContextOf(once.id), at(once.sentAt + d * DAY + MINUTE));
    expect(await reminders(once.id)).toHaveLength(1);
    expect(await reminders(none.id)).toHaveLength(0);
  });

  it("uses the organization's defaults for an envelope that sets none; the envelope's own win", async () => {
    const t = await newTenant();
    const defaulted = await sent(t.key);
    const own = await sent(t.key, { reminder_after_days: 6 });
    const patched = await operator("PATCH", `/orgs/${t.orgId}`, { reminder_after_days: 2, reminder_every_days: 3 });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ reminder_after_days: 2, reminder_every_days: 3 });

    await sendReminders(jobContextOf(defaulted.id), at(defaulted.sentAt + 2 * DAY + MINUTE));
    expect(await reminders(defaulted.id)).toHaveLength(1);
    expect(await reminders(own.id)).toHaveLength(0);
    await sendReminders(jobContextOf(defaulted.id), at(defaulted.sentAt + 5 * DAY + 2 * MINUTE));
    expect(await reminders(defaulted.id)).toHaveLength(2);
    await sendReminders(jobContextOf(own.id), at(own.sentAt + 6 * DAY + 3 * MINUTE));
    expect(await reminders(own.id)).toHaveLength(1);
    // the organization's every-3-days applies to the envelope that set only its first reminder
    await sendReminders(jobContextOf(own.id), at(own.sentAt + 9 * DAY + 4 * MINUTE));
    expect(await reminders(own.id)).toHaveLength(2);
  });

  it("never reminds a signer who has signed: the next one in routing order, or the parallel one still signing, gets it", async () => {
    const t = await newTenant();
    const seq = await sent(t.key, { reminder_after_days: 1 });
    const par = await sent(t.key, { reminder_after_days: 1 }, { parallel: true });
    const parSlug = await invitationSlug(par.id, ANN.email);
    expect((await signing("POST", seq.invitation, "submit", { values: { buyer_signature: TINY_PNG } })).status).toBe(200);
    expect((await signing("POST", parSlug, "submit", { values: { buyer_signature: TINY_PNG } })).status).toBe(200);

    await sendReminders(jobContextOf(seq.id), at(seq.sentAt + DAY + MINUTE));
    expect((await reminders(seq.id)).map((m) => m.to_email)).toEqual([COLE.email]);
    expect((await reminders(par.id)).map((m) => m.to_email)).toEqual([COLE.email]);
    const cole = (await reminders(seq.id))[0]!;
    expect((await signing("GET", await slugOf(cole))).status).toBe(200);
  });

  it("sends nothing once the envelope is completed, declined, voided or past its expiry", async () => {
    const t = await newTenant();
    const schedule = { reminder_after_days: 1, reminder_every_days: 1 };
    const completed = await sent(t.key, schedule, { solo: true });
    const declined = await sent(t.key, schedule);
    const voided = await sent(t.key, schedule);
    const expiring = await sent(t.key, { ...schedule, expires_in_days: 3 });
    expect((await signing("POST", completed.invitation, "submit", { values: { buyer_signature: TINY_PNG } })).status).toBe(200);
    expect((await signing("POST", declined.invitation, "decline", { reason: "The APR is wrong" })).status).toBe(200);
    expect((await call("POST", `/partner/envelopes/${voided.id}/void`, { key: t.key, body: { reason: "Deal restructured" } })).status).toBe(200);

    for (const d of [1, 2, 4]) await runCron(at(completed.sentAt + d * DAY + MINUTE));
    for (const e of [completed, declined, voided]) {
      expect(await reminders(e.id)).toHaveLength(0);
      expect(await warnings(e.id)).toHaveLength(0);
    }
    // the expiring one (3 days) was warned on day 1 (the warning goes alone when both are due and counts as the reminder), reminded on day 2, then nothing after its expiry
    expect(await reminders(expiring.id)).toHaveLength(1);
    expect(await warnings(expiring.id)).toHaveLength(1);
    const status = await shardDbOf(expiring.id).prepare("SELECT status FROM envelopes WHERE id = ?").bind(expiring.id).first("status");
    expect(status).toBe("expired");
    await sendReminders(jobContextOf(expiring.id), at(expiring.expiresAt + 5 * DAY));
    expect(await reminders(expiring.id)).toHaveLength(1);
  });

  it("warns the signers whose turn it is once, 2 days before expires_at, with a working link", async () => {
    const t = await newTenant();
    const e = await sent(t.key, {}, { parallel: true });
    await sendReminders(jobContextOf(e.id), at(e.expiresAt - 2 * DAY - MINUTE));
    expect(await warnings(e.id)).toHaveLength(0);

    await sendReminders(jobContextOf(e.id), at(e.expiresAt - 2 * DAY + MINUTE));
    const sentWarnings = await warnings(e.id);
    expect(sentWarnings.map((m) => m.to_email).sort()).toEqual([ANN.email, COLE.email]);
    expect(sentWarnings[0]!.subject).toContain(`expires on ${new Date(e.expiresAt).toISOString().slice(0, 10)}`);
    for (const m of sentWarnings) expect((await signing("GET", await slugOf(m))).status).toBe(200);

    await sendReminders(jobContextOf(e.id), at(e.expiresAt - DAY));
    await sendReminders(jobContextOf(e.id), at(e.expiresAt - MINUTE));
    expect(await warnings(e.id)).toHaveLength(2);
    expect(await reminders(e.id)).toHaveLength(0);
  });

  it("sends once when two runs overlap: the second run's batch, planned on the same read, writes nothing", async () => {
    const t = await newTenant();
    const e = await sent(t.key, { reminder_after_days: 1, reminder_every_days: 1 });
    const now = new Date(e.sentAt + DAY + MINUTE).toISOString();
    const [a, b] = await Promise.all([listEnvelopesDueForReminders(shardDbOf(e.id), now, 50), listEnvelopesDueForReminders(shardDbOf(e.id), now, 50)]);
    const rowA = a.find((r) => r.id === e.id)!;
    const rowB = b.find((r) => r.id === e.id)!;
    expect(await remindSigners(orgContextOf(t.orgId, e.id), { due: rowA, now })).toHaveLength(1);
    expect(await remindSigners(orgContextOf(t.orgId, e.id), { due: rowB, now })).toHaveLength(0);
    const [reminder] = await reminders(e.id);
    expect(await reminders(e.id)).toHaveLength(1);
    // the link of the one reminder sent still works: the second run did not re-issue it
    expect((await signing("GET", await slugOf(reminder!))).status).toBe(200);
  });
});

describe("reminder settings", () => {
  it("POST /partner/envelopes stores reminder_after_days and reminder_every_days", async () => {
    const t = await newTenant();
    const res = await call("POST", "/partner/envelopes", {
      key: t.key,
      body: { envelope_name: "Contract", customer_email: "jane@example.com", customer_name: "Jane", reminder_after_days: 30, reminder_every_days: 0 },
    });
    expect(res.status).toBe(201);
    const row = await shardDbOf(res.body.data.envelope_id).prepare("SELECT reminder_after_days, reminder_every_days FROM envelopes WHERE id = ?").bind(res.body.data.envelope_id).first();
    expect(row).toEqual({ reminder_after_days: 30, reminder_every_days: 0 });
  });

  it("POST /partner/envelopes answers 422 naming an out-of-range reminder field, and creates nothing", async () => {
    const t = await newTenant();
    const cases: [Record<string, unknown>, string][] = [
      [{ reminder_after_days: 0 }, "reminder_after_days"],
      [{ reminder_after_days: 31 }, "reminder_after_days"],
      [{ reminder_after_days: 1.5 }, "reminder_after_days"],
      [{ reminder_every_days: -1 }, "reminder_every_days"],
      [{ reminder_every_days: 31 }, "reminder_every_days"],
      [{ reminder_every_days: "2" }, "reminder_every_days"],
    ];
    for (const [fields, path] of cases) {
      const res = await call("POST", "/partner/envelopes", { key: t.key, body: { envelope_name: "Contract", customer_email: "jane@example.com", customer_name: "Jane", ...fields } });
      expect(res.status, JSON.stringify(fields)).toBe(422);
      expect(res.body.details.map((d: { path: string[] }) => d.path.join("."))).toEqual([path]);
    }
    expect(await (await orgShardDb(t.orgId)).prepare("SELECT COUNT(*) AS n FROM envelopes WHERE org_id = ?").bind(t.orgId).first("n")).toBe(0);
  });

  it("PATCH /operator/orgs/:org_id sets the defaults, null clears them, out of range is 422", async () => {
    const t = await newTenant();
    const set = await operator("PATCH", `/orgs/${t.orgId}`, { reminder_after_days: 5, reminder_every_days: 0 });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ reminder_after_days: 5, reminder_every_days: 0 });
    const bad = await operator("PATCH", `/orgs/${t.orgId}`, { reminder_after_days: 31, reminder_every_days: -1 });
    expect(bad.status).toBe(422);
    expect(bad.body.details.map((d: { path: string[] }) => d.path.join(".")).sort()).toEqual(["reminder_after_days", "reminder_every_days"]);
    const cleared = await operator("PATCH", `/orgs/${t.orgId}`, { reminder_after_days: null });
    expect(cleared.body.data).toMatchObject({ reminder_after_days: null, reminder_every_days: 0 });
  });
});
