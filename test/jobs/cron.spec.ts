import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { OutboxMessage } from "../../src/env";
import { call, createEnvelope, newTenant } from "../helpers/api";
import { shardDbOf } from "../helpers/shards";

async function runCron(at: Date) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: at.getTime(), cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

async function sentEnvelope(key: string, expiresAt: string, status = "sent") {
  const e = await createEnvelope(key);
  await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = ?, expires_at = ? WHERE id = ?").bind(status, expiresAt, e.envelope_id).run();
  return e;
}

describe("envelope expiry sweep (cron)", () => {
  it("expires sent and viewed envelopes past expires_at, firing envelope.expired, and leaves the rest", async () => {
    const t = await newTenant();
    const now = new Date();
    const past = new Date(now.getTime() - 60_000).toISOString();
    const future = new Date(now.getTime() + 86_400_000).toISOString();
    const overdueSent = await sentEnvelope(t.key, past);
    const overdueViewed = await sentEnvelope(t.key, past, "viewed");
    const notDue = await sentEnvelope(t.key, future);
    const completed = await sentEnvelope(t.key, past, "completed");
    const pending = await createEnvelope(t.key);

    await runCron(now);

    const status = async (id: string) => (await call("GET", `/partner/envelopes/${id}/status`, { key: t.key })).body.data.status;
    expect(await status(overdueSent.envelope_id)).toBe("expired");
    expect(await status(overdueViewed.envelope_id)).toBe("expired");
    expect(await status(notDue.envelope_id)).toBe("sent");
    expect(await status(completed.envelope_id)).toBe("completed");
    expect(await status(pending.envelope_id)).toBe("pending");
    const ev = await shardDbOf(overdueSent.envelope_id).prepare("SELECT type, data FROM events WHERE envelope_id = ? AND type = 'envelope.expired'").bind(overdueSent.envelope_id).first<{ data: string }>();
    expect(JSON.parse(ev!.data)).toMatchObject({ status: "expired", customer_id: overdueSent.customer_id, expires_at: past });

    // A second run finds nothing more to do and emits nothing twice.
    await runCron(now);
    const count = await shardDbOf(overdueSent.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ? AND type = 'envelope.expired'").bind(overdueSent.envelope_id).first<{ n: number }>();
    expect(count!.n).toBe(1);
  });
});

describe("transactional outbox", () => {
  it("marks an event dispatched when the queue consumer takes it, and is idempotent per event", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const event = await shardDbOf(e.envelope_id).prepare("SELECT id FROM events WHERE envelope_id = ?").bind(e.envelope_id).first<{ id: string }>();
    const batch = createMessageBatch<OutboxMessage>("esign-vault-webhooks", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { kind: "event", event_id: event!.id } },
      { id: "m2", timestamp: new Date(), attempts: 1, body: { kind: "event", event_id: event!.id } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["m1", "m2"]);
    const row = await shardDbOf(event!.id).prepare("SELECT dispatched_at FROM events WHERE id = ?").bind(event!.id).first<{ dispatched_at: string | null }>();
    expect(row!.dispatched_at).not.toBeNull();
  });

  it("delivers a new event to the queue consumer on the fast path", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    expect(await waitForDispatch(e.envelope_id)).not.toBeNull();
  });

  it("re-enqueues, from the cron relay, events the fast path did not deliver", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    await waitForDispatch(e.envelope_id);
    // As if the queue had lost the message: undispatched, and older than the relay's grace period.
    await shardDbOf(e.envelope_id).prepare("UPDATE events SET dispatched_at = NULL, created_at = ? WHERE envelope_id = ?")
      .bind(new Date(Date.now() - 5 * 60_000).toISOString(), e.envelope_id)
      .run();
    await runCron(new Date());
    expect(await waitForDispatch(e.envelope_id)).not.toBeNull();
  });
});

async function waitForDispatch(envelopeId: string): Promise<string | null> {
  for (let i = 0; i < 100; i++) {
    const row = await shardDbOf(envelopeId).prepare("SELECT dispatched_at FROM events WHERE envelope_id = ?").bind(envelopeId).first<{ dispatched_at: string | null }>();
    if (row?.dispatched_at) return row.dispatched_at;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

describe("scheduled jobs", () => {
  it("runs every job even when one fails, and reports the failure", async () => {
    const t = await newTenant();
    const overdue = await sentEnvelope(t.key, new Date(Date.now() - 60_000).toISOString());
    const relayed = await createEnvelope(t.key);
    await waitForDispatch(relayed.envelope_id); // the request's own fan-out (issue 17) first, then "lose" it
    await shardDbOf(relayed.envelope_id).prepare("UPDATE events SET dispatched_at = NULL, created_at = ? WHERE envelope_id = ?")
      // 2 minutes old: past the relay's 30 s grace, before it fans out itself (RELAY_FAN_OUT_AFTER_MS), so it needs the queue
      .bind(new Date(Date.now() - 2 * 60_000).toISOString(), relayed.envelope_id)
      .run();
    // The queue refuses every message: the relay fails, the expiry sweep must still run.
    const brokenQueue = { send: async () => { throw new Error("queue down"); }, sendBatch: async () => { throw new Error("queue down"); } };
    const ctx = createExecutionContext();
    const run = worker.scheduled(
      createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }),
      { ...env, WEBHOOK_QUEUE: brokenQueue as unknown as Queue<OutboxMessage> },
      ctx,
    );
    await expect(run).rejects.toThrow(/relay-outbox: Error: queue down/);
    await waitOnExecutionContext(ctx);
    const row = await shardDbOf(overdue.envelope_id).prepare("SELECT status FROM envelopes WHERE id = ?").bind(overdue.envelope_id).first<{ status: string }>();
    expect(row!.status).toBe("expired");
  });
});

describe("a development cron run's clock (the soak's catch-up)", () => {
  it("in development a cron string ending in @<ms> runs the jobs at that time (an envelope due tomorrow expires); in production the clock is the trigger's", async () => {
    const t = await newTenant();
    const now = new Date();
    const tomorrow = new Date(now.getTime() + 86_400_000).toISOString();
    const inProduction = await sentEnvelope(t.key, tomorrow);
    const inDevelopment = await sentEnvelope(t.key, tomorrow);
    const run = async (bindings: typeof env) => {
      const ctx = createExecutionContext();
      // a production run fails the jobs production refuses to run unconfigured (email): the expiry still runs
      await worker.scheduled(createScheduledController({ scheduledTime: now.getTime(), cron: `* * * * *@${now.getTime() + 2 * 86_400_000}` }), bindings, ctx).catch(() => undefined);
      await waitOnExecutionContext(ctx);
    };
    const status = async (id: string) => (await call("GET", `/partner/envelopes/${id}/status`, { key: t.key })).body.data.status;

    await run({ ...env, SERVICE_ENV: "production" });
    expect(await status(inProduction.envelope_id)).toBe("sent");

    await run(env);
    expect(await status(inDevelopment.envelope_id)).toBe("expired");
    expect(await status(inProduction.envelope_id)).toBe("expired");
  });
});
