import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { OutboxMessage } from "../../src/env";
import { INTEGRITY_SWEEP_CRON } from "../../src/jobs/integrity-sweep";
import { INLINE_SHARDS_MAX, planMinute, runMinute } from "../../src/jobs/minute";
import { shardOf } from "../../src/lib/shards";
import { call, createEnvelope, newTenant, operator } from "../helpers/api";
import { jobContext } from "../helpers/context";
import { CONTROL_SCOPES, offered, vaulted } from "../helpers/control";
import { sendableEnvelope, sendEnvelope } from "../helpers/signing";
import { globalDb, shardDb, shardDbOf } from "../helpers/shards";

// The minute cron runs every per-shard job once per bound shard (docs/decisions/shards.md 3, "Crons").
// Tests that place an organization on shard 2 need the pool to bind SHARD_2 (the lead binds it).

async function runCron(at: Date, cron = "* * * * *") {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: at.getTime(), cron }), env, ctx);
  await waitOnExecutionContext(ctx);
}

async function overdueEnvelope(key: string, expiresAt: string) {
  const e = await createEnvelope(key);
  await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = 'sent', expires_at = ? WHERE id = ?").bind(expiresAt, e.envelope_id).run();
  return e;
}

const partyOn = (shard: number, name: string) => newTenant({ scopes: CONTROL_SCOPES, name, shard });

const status = async (key: string, id: string) => (await call("GET", `/partner/envelopes/${id}/status`, { key })).body.data.status as string;

// shard 2 open for placement (best effort: an unbound shard 2 answers 404 and the tests that need it fail)
beforeAll(async () => {
  await operator("PATCH", "/shards/2", { state: "open" });
});

describe("the minute cron runs each job on every shard", () => {
  it("expires an overdue envelope on shard 1 and one on shard 2 in one run", async () => {
    const [one, two] = await Promise.all([newTenant({ shard: 1 }), newTenant({ shard: 2 })]);
    const now = new Date();
    const past = new Date(now.getTime() - 60_000).toISOString();
    const [e1, e2] = await Promise.all([overdueEnvelope(one.key, past), overdueEnvelope(two.key, past)]);
    expect(shardOf(e1.envelope_id)).toBe(1);
    expect(shardOf(e2.envelope_id)).toBe(2);

    await runCron(now);

    expect(await status(one.key, e1.envelope_id)).toBe("expired");
    expect(await status(two.key, e2.envelope_id)).toBe("expired");
    // the event of each is on its envelope's shard
    for (const e of [e1, e2]) {
      const n = await shardDbOf(e.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ? AND type = 'envelope.expired'").bind(e.envelope_id).first<number>("n");
      expect(n).toBe(1);
    }
  });

  it("still sweeps the envelopes an organization left on its old shard after a move", async () => {
    const t = await newTenant({ shard: 1 });
    const now = new Date();
    const old = await overdueEnvelope(t.key, new Date(now.getTime() + 3_600_000).toISOString());
    expect((await operator("PATCH", `/orgs/${t.orgId}`, { current_shard_id: 2 })).status).toBe(200);
    const fresh = await overdueEnvelope(t.key, new Date(now.getTime() + 3_600_000).toISOString());
    expect([shardOf(old.envelope_id), shardOf(fresh.envelope_id)]).toEqual([1, 2]);

    await runCron(new Date(now.getTime() + 2 * 3_600_000));

    // the old envelope, on the shard the organization left, expires like the new one
    expect(await status(t.key, old.envelope_id)).toBe("expired");
    expect(await status(t.key, fresh.envelope_id)).toBe("expired");
  });

  it("sends a due reminder on shard 2 by the organization's default, read from the global database", async () => {
    const t = await newTenant({ shard: 2 });
    await globalDb.prepare("UPDATE organizations SET reminder_after_days = 1, reminder_every_days = 0 WHERE id = ?").bind(t.orgId).run();
    const e = await sendableEnvelope(t.key, ["buyer"]);
    const sent = await sendEnvelope(t.key, e.envelope_id, { signers: [{ role: "buyer", email: "ann@example.com", name: "Ann Buyer", routing_order: 1 }] });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(shardOf(e.envelope_id)).toBe(2);
    const row = await shardDbOf(e.envelope_id).prepare("SELECT expires_at, expires_in_days FROM envelopes WHERE id = ?").bind(e.envelope_id).first<{ expires_at: string; expires_in_days: number }>();
    const sentAt = Date.parse(row!.expires_at) - row!.expires_in_days * 86_400_000;

    await runCron(new Date(sentAt + 86_400_000 + 60_000));

    const reminders = await shardDbOf(e.envelope_id)
      .prepare("SELECT COUNT(*) AS n FROM email_outbox WHERE envelope_id = ? AND kind = 'reminder'")
      .bind(e.envelope_id)
      .first<number>("n");
    expect(reminders).toBeGreaterThanOrEqual(1);
    const remindersSent = await shardDbOf(e.envelope_id).prepare("SELECT reminders_sent FROM envelopes WHERE id = ?").bind(e.envelope_id).first<number>("reminders_sent");
    expect(remindersSent).toBe(1);
  });

  it("expires a lapsed transfer on shard 1 and one on shard 2 in one run", async () => {
    const [a1, b1, a2, b2] = await Promise.all([partyOn(1, "A one"), partyOn(2, "B two"), partyOn(2, "A two"), partyOn(1, "B one")]);
    const [r1, r2] = await Promise.all([vaulted(a1), vaulted(a2)]);
    const [t1, t2] = [await offered(a1, r1.vaultId, b1), await offered(a2, r2.vaultId, b2)];
    expect([shardOf(t1.transfer_id), shardOf(t2.transfer_id)]).toEqual([1, 2]);
    const now = new Date();
    for (const t of [t1, t2]) {
      await shardDbOf(t.transfer_id).prepare("UPDATE vault_transfers SET expires_at = ? WHERE id = ?").bind(new Date(now.getTime() - 60_000).toISOString(), t.transfer_id).run();
    }

    await runCron(now);

    for (const t of [t1, t2]) {
      expect(await shardDbOf(t.transfer_id).prepare("SELECT status FROM vault_transfers WHERE id = ?").bind(t.transfer_id).first<string>("status")).toBe("expired");
    }
  });

  it("the weekly integrity sweep checks the vaulted documents of both shards", async () => {
    const [a, b] = await Promise.all([partyOn(1, "Shard one lender"), partyOn(2, "Shard two lender")]);
    const [ra, rb] = await Promise.all([vaulted(a), vaulted(b)]);
    expect(shardOf(ra.vaultId)).toBe(1);
    expect(shardOf(rb.vaultId)).toBe(2);
    const sweeps = (vaultId: string) =>
      shardDbOf(vaultId).prepare("SELECT COUNT(*) AS n FROM vault_integrity_checks WHERE vault_id = ? AND source = 'sweep'").bind(vaultId).first<number>("n");
    expect(await sweeps(ra.vaultId)).toBe(0);
    expect(await sweeps(rb.vaultId)).toBe(0);

    await runCron(new Date(), INTEGRITY_SWEEP_CRON);

    expect(await sweeps(ra.vaultId)).toBe(1);
    expect(await sweeps(rb.vaultId)).toBe(1);
    // each shard keeps its own cursor
    for (const n of [1, 2]) {
      const cursor = await shardDb(n).prepare("SELECT job FROM job_cursors WHERE job = 'vault_integrity_sweep'").first<string>("job");
      expect(cursor).toBe("vault_integrity_sweep");
    }
  });
});

describe("past 8 shards the minute cron enqueues one shard_tick per shard", () => {
  it("plans inline up to 8 shards and one message per shard beyond", () => {
    const at = "2026-11-26T10:00:00.000Z";
    const eight = Array.from({ length: INLINE_SHARDS_MAX }, (_, i) => i + 1);
    expect(planMinute(eight, at)).toEqual({ mode: "inline", shards: eight });
    const nine = [...eight, 9];
    const plan = planMinute(nine, at);
    expect(plan.mode).toBe("enqueue");
    expect(plan.mode === "enqueue" && plan.messages).toEqual(nine.map((shard) => ({ kind: "shard_tick", shard, at })));
  });

  it("with 9 shards runs no shard's jobs itself: an overdue envelope waits for its shard's tick", async () => {
    const t = await newTenant({ shard: 1 });
    const now = new Date();
    const e = await overdueEnvelope(t.key, new Date(now.getTime() - 60_000).toISOString());
    const sent: OutboxMessage[] = [];
    const ctx = { ...jobContext(), env: { ...env, WEBHOOK_QUEUE: { sendBatch: async (m: { body: OutboxMessage }[]) => void sent.push(...m.map((x) => x.body)) } } as unknown as typeof env };

    const { plan, failed } = await runMinute(ctx, now, [1, 2, 3, 4, 5, 6, 7, 8, 9]);

    expect(plan.mode).toBe("enqueue");
    expect(failed).toEqual([]);
    expect(sent.map((m) => (m.kind === "shard_tick" ? m.shard : null))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await status(t.key, e.envelope_id)).toBe("sent");

    // the queue consumer runs shard 1's tick: the envelope expires; the tick is acked
    const batch = createMessageBatch<OutboxMessage>("esign-vault-webhooks", [
      { id: "t1", timestamp: now, attempts: 1, body: sent[0]! },
    ]);
    const exec = createExecutionContext();
    await worker.queue(batch, env, exec);
    const result = await getQueueResult(batch, exec);
    expect(result.explicitAcks).toEqual(["t1"]);
    expect(await status(t.key, e.envelope_id)).toBe("expired");
  });

  it("drops a stale tick (a backlog) without running its jobs", async () => {
    const t = await newTenant({ shard: 1 });
    const now = new Date();
    const e = await overdueEnvelope(t.key, new Date(now.getTime() - 60_000).toISOString());
    const batch = createMessageBatch<OutboxMessage>("esign-vault-webhooks", [
      { id: "old", timestamp: now, attempts: 1, body: { kind: "shard_tick", shard: 1, at: new Date(now.getTime() - 10 * 60_000).toISOString() } },
    ]);
    const exec = createExecutionContext();
    await worker.queue(batch, env, exec);
    expect((await getQueueResult(batch, exec)).explicitAcks).toEqual(["old"]);
    expect(await status(t.key, e.envelope_id)).toBe("sent");
  });
});
