import { createMessageBatch, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env, OutboxMessage } from "../../src/env";
import { dispatchEvents } from "../../src/jobs/dispatch-events";
import { publishEvents } from "../../src/services/webhooks/publish";
import { deliverNow, IMMEDIATE_DELIVERIES } from "../../src/services/webhooks/deliver-now";
import { newTenant } from "../helpers/api";
import { bulkTenant, readyBatch, runToEnd } from "../helpers/bulk";
import { jobContext, jobContextOf } from "../helpers/context";
import { adminToken, createEndpoint, deliveriesOf, insertEvent, received, receiverUrl, recordingQueue, waitForRequests } from "../helpers/webhooks";
import { orgShardDb, orgShardNumber, shardDbOf, withEveryDb } from "../helpers/shards";
import { orgAnchorInsert } from "../../src/services/shards/repository";


/**
 * The test bindings with every database (the global one and each shard) counting its batches (round
 * trips that write) and the rows they read, into one counter.
 */
function countingDb(bindings: Partial<Env> = {}) {
  const counter = { batches: 0, rowsRead: 0 };
  const counting = (db: D1Database) =>
    new Proxy(db, {
      get(target, prop) {
        if (prop === "batch")
          return async (statements: D1PreparedStatement[]) => {
            counter.batches += 1;
            const results = await target.batch(statements);
            for (const r of results) counter.rowsRead += r.meta.rows_read;
            return results;
          };
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return { bindings: withEveryDb({ ...env, ...bindings } as Env, counting), counter };
}

/** An organization with `n` endpoints on fresh receiver paths, registered in that order. */
async function orgWithEndpoints(n: number, events?: string[]) {
  const t = await newTenant();
  const token = await adminToken(t.orgId);
  const targets = [];
  for (let i = 0; i < n; i++) {
    const target = receiverUrl("ok");
    const ep = await createEndpoint(token, { url: target.url, ...(events ? { events } : {}) });
    targets.push({ ...target, endpointId: ep.endpoint_id });
  }
  return { t, targets };
}

/** orgWithEndpoints, and `n` envelope.sent events of it committed, not yet published. */
async function orgWithEvents(endpoints: number, n: number) {
  const org = await orgWithEndpoints(endpoints);
  const eventIds: string[] = [];
  for (let i = 0; i < n; i++) eventIds.push(await insertEvent(org.t.orgId, "envelope.sent", { seq: i }));
  return { ...org, eventIds };
}

const eventIdsAt = async (path: string) => (await received(path)).map((r) => JSON.parse(r.body).event_id as string);

describe("webhooks of several events committed together", () => {
  it("sends the events of one commit to every endpoint in two round trips whatever their number, each once", async () => {
    const { t, targets, eventIds } = await orgWithEvents(3, 12);
    const { queue, sent } = recordingQueue();
    const { bindings, counter } = countingDb({ WEBHOOK_QUEUE: queue });
    await publishEvents(jobContextOf(eventIds[0]!, bindings), eventIds);

    expect(counter.batches).toBe(2); // the fan-out of all twelve, then the record of all 36 attempts
    expect(sent).toEqual([]);
    for (const target of targets) {
      expect((await eventIdsAt(target.path)).sort()).toEqual([...eventIds].sort());
      const rows = await deliveriesOf(target.endpointId);
      expect(rows).toHaveLength(12);
      for (const row of rows) expect(row).toMatchObject({ status: "succeeded", attempts: 1 });
    }
    const undispatched = await (await orgShardDb(t.orgId)).prepare("SELECT COUNT(*) AS n FROM events WHERE org_id = ? AND dispatched_at IS NULL").bind(t.orgId).first<{ n: number }>();
    expect(undispatched!.n).toBe(0);
  });

  it("sends the events of two organizations fanned out together each to its own organization's subscribed endpoints only", async () => {
    const a = await orgWithEndpoints(1);
    const b = await orgWithEndpoints(1, ["envelope.sent"]);
    // the events of one commit are on one shard (a transfer's events to both parties are on the record's)
    const shard = await orgShardNumber(a.t.orgId);
    const aSent = await insertEvent(a.t.orgId, "envelope.sent");
    const bSent = await insertEvent(b.t.orgId, "envelope.sent", undefined, shard);
    const bCompleted = await insertEvent(b.t.orgId, "envelope.completed", undefined, shard);
    await publishEvents(jobContextOf(aSent), [aSent, bSent, bCompleted]);

    expect(await eventIdsAt(a.targets[0]!.path)).toEqual([aSent]);
    expect(await eventIdsAt(b.targets[0]!.path)).toEqual([bSent]);
    expect((await deliveriesOf(a.targets[0]!.endpointId)).map((d) => [d.event_id, d.org_id])).toEqual([[aSent, a.t.orgId]]);
    expect((await deliveriesOf(b.targets[0]!.endpointId)).map((d) => [d.event_id, d.org_id])).toEqual([[bSent, b.t.orgId]]);
    // the event nobody subscribes to is dispatched all the same, so the relay never picks it up
    const row = await shardDbOf(bCompleted).prepare("SELECT dispatched_at FROM events WHERE id = ?").bind(bCompleted).first<{ dispatched_at: string | null }>();
    expect(row!.dispatched_at).not.toBeNull();
  });

  it("sends at once up to the claim cap, the first events' deliveries first, and queues the rest, due at once", async () => {
    const { t, targets } = await orgWithEndpoints(3);
    const eventIds = [await insertEvent(t.orgId, "envelope.sent"), await insertEvent(t.orgId, "envelope.sent"), await insertEvent(t.orgId, "envelope.sent")];
    const { queue, sent } = recordingQueue();
    const result = await deliverNow(jobContextOf(eventIds[0]!, { ...env, WEBHOOK_QUEUE: queue }), { eventIds, claimMax: 4 });

    expect(result).toEqual({ sent: 4, queued: 5 });
    // the first event to all three endpoints, the second to the first endpoint registered
    // (the two go out at once, so they may arrive in either order)
    expect((await eventIdsAt(targets[0]!.path)).sort()).toEqual(eventIds.slice(0, 2).sort());
    expect(await eventIdsAt(targets[1]!.path)).toEqual(eventIds.slice(0, 1));
    expect(await eventIdsAt(targets[2]!.path)).toEqual(eventIds.slice(0, 1));
    expect(sent).toHaveLength(5);
    expect(sent.every((m) => m.kind === "delivery")).toBe(true);

    // the consumer sends the queued ones; every endpoint ends with every event, once
    await dispatchEvents(
      jobContext(),
      createMessageBatch<OutboxMessage>(
        "esign-vault-webhooks",
        sent.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
      ),
    );
    for (const target of targets) expect((await eventIdsAt(target.path)).sort()).toEqual([...eventIds].sort());
  });

  it("fans out more events than one batch takes in batches of 50, in order, the claim cap carried across them", async () => {
    // 120 events to three endpoints: 360 deliveries, past the invocation's cap of IMMEDIATE_DELIVERIES (300)
    const { targets, eventIds } = await orgWithEvents(3, 120);
    const immediateEvents = IMMEDIATE_DELIVERIES / 3;
    const { queue, sent } = recordingQueue();
    const { bindings, counter } = countingDb({ WEBHOOK_QUEUE: queue });
    const result = await deliverNow(jobContextOf(eventIds[0]!, bindings), { eventIds });

    // the first 100 events' 300 first attempts at once (two fan-out batches of 50), the last 20 events' 60 deliveries queued
    expect(result).toEqual({ sent: IMMEDIATE_DELIVERIES, queued: 360 - IMMEDIATE_DELIVERIES });
    expect(counter.batches).toBe(4); // three fan-out batches (50, 50, 20 events), one record
    for (const target of targets) expect((await eventIdsAt(target.path)).sort()).toEqual(eventIds.slice(0, immediateEvents).sort());
    const queuedIds = sent.map((m) => (m.kind === "delivery" ? m.delivery_id : ""));
    const { results } = await shardDbOf(eventIds[0]!).prepare("SELECT event_id FROM webhook_deliveries WHERE id IN (SELECT value FROM json_each(?))").bind(JSON.stringify(queuedIds)).all<{ event_id: string }>();
    expect(results).toHaveLength(360 - IMMEDIATE_DELIVERIES);
    expect(new Set(results.map((r) => r.event_id))).toEqual(new Set(eventIds.slice(immediateEvents)));
  });

  it("two publishes of one invocation at once share its cap: the second claims what the first did not use, nothing is queued", async () => {
    // a bulk chunk publishes its envelopes' envelope.created and, a commit later, their envelope.sent, both in waitUntil:
    // 50 events to three endpoints each, 150 + 150 first attempts within the cap of 300
    const { targets, eventIds } = await orgWithEvents(3, 100);
    const { queue, sent } = recordingQueue();
    const ctx = jobContextOf(eventIds[0]!, { ...env, WEBHOOK_QUEUE: queue } as Env);
    const [created, sentEvents] = await Promise.all([deliverNow(ctx, { eventIds: eventIds.slice(0, 50) }), deliverNow(ctx, { eventIds: eventIds.slice(50) })]);
    expect([created, sentEvents]).toEqual([
      { sent: 150, queued: 0 },
      { sent: 150, queued: 0 },
    ]);
    expect(sent).toEqual([]);
    for (const target of targets) expect((await eventIdsAt(target.path)).sort()).toEqual([...eventIds].sort());
    // the cap is spent: a third publish in the same invocation queues all of its deliveries
    const more = await orgWithEvents(1, 1);
    expect(await deliverNow(ctx, { eventIds: more.eventIds })).toEqual({ sent: 0, queued: 1 });
  });

  it("does not fan an event out twice when it comes again among new ones", async () => {
    const { t, targets } = await orgWithEndpoints(1);
    const first = await insertEvent(t.orgId, "envelope.sent");
    await publishEvents(jobContextOf(first), [first]);
    const second = await insertEvent(t.orgId, "envelope.sent");
    await publishEvents(jobContextOf(first), [first, second, second]);

    expect(await eventIdsAt(targets[0]!.path)).toEqual([first, second]);
    expect(await deliveriesOf(targets[0]!.endpointId)).toHaveLength(2);
  });

  it("finds the events it fans out by id: the work of a publish does not grow with the events still in flight", async () => {
    const { t, targets } = await orgWithEndpoints(1);
    const quiet = await newTenant();
    const event = await insertEvent(t.orgId, "envelope.sent");
    // 300 events of another organization committed and not yet dispatched (a burst in flight), on the same shard
    const shard = shardDbOf(event);
    const at = new Date().toISOString();
    const inFlight = Array.from({ length: 300 }, (_, i) =>
      shard.prepare("INSERT INTO events (id, org_id, envelope_id, type, data, created_at) VALUES (?, ?, NULL, 'envelope.sent', '{}', ?)").bind(`evt_inflight${i}_${crypto.randomUUID()}`, quiet.orgId, at),
    );
    await shard.batch([orgAnchorInsert(shard, quiet.orgId, at), ...inFlight]);
    const { bindings, counter } = countingDb();
    await publishEvents(jobContextOf(event, bindings), [event]);
    expect(counter.rowsRead).toBeLessThan(100);
    expect(await eventIdsAt(targets[0]!.path)).toEqual([event]);
  });

  it("a bulk send's endpoint hears envelope.created and envelope.sent of every client once", async () => {
    const t = await bulkTenant();
    const target = receiverUrl("ok");
    await createEndpoint(await adminToken(t.orgId), { url: target.url, events: ["envelope.created", "envelope.sent"] });
    const { batchId } = await readyBatch(t, { n: 4 });
    expect((await t.as("POST", `/bulk-send/${batchId}/submit`)).status).toBe(202);
    expect((await runToEnd(batchId)).status).toBe("completed");

    const got = await waitForRequests(target.path, 8);
    const { results: envelopes } = await shardDbOf(batchId).prepare("SELECT id FROM envelopes WHERE json_extract(metadata, '$.bulk_send.batch_id') = ? ORDER BY id")
      .bind(batchId)
      .all<{ id: string }>();
    expect(envelopes).toHaveLength(4);
    const heard = got.map((r) => JSON.parse(r.body) as { event_type: string; envelope_id: string; event_id: string });
    expect(new Set(heard.map((h) => h.event_id)).size).toBe(heard.length);
    expect(heard.map((h) => `${h.envelope_id} ${h.event_type}`).sort()).toEqual(envelopes.flatMap((e) => [`${e.id} envelope.created`, `${e.id} envelope.sent`]).sort());
  });
});
