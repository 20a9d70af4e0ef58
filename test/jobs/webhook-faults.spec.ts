import { createMessageBatch, env, getQueueResult, createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env, OutboxMessage } from "../../src/env";
import { dispatchEvents } from "../../src/jobs/dispatch-events";
import { RELAY_FAN_OUT_AFTER_MS, relayOutbox } from "../../src/jobs/relay-outbox";
import { sweepDeliveries } from "../../src/jobs/sweep-deliveries";
import { fanOutEvent } from "../../src/services/webhooks/fan-out";
import { newTenant } from "../helpers/api";
import { adminToken, attemptsOf, createEndpoint, deliveriesOf, insertEvent, received, receiverUrl, recordingQueue, tenantWithEndpoint } from "../helpers/webhooks";
import { jobContext, jobContextOf } from "../helpers/context";
import { orgShardDb, shardDbOf, withShard } from "../helpers/shards";
import { shardOf } from "../../src/lib/shards";

// the hanging receiver must not cost the suite 10 s per attempt; long enough that a healthy loopback receiver
// on a fully loaded machine never hits it (at 300 ms a slow answer from the ok/redirect/close receivers
// timed out instead, and the first-error assertions below saw "timed out" in place of 302 / network error)
const TIMEOUT_MS = 3_000;
const HOUR = 3600_000;


function messages(bodies: OutboxMessage[]) {
  return createMessageBatch<OutboxMessage>(
    "esign-vault-webhooks",
    bodies.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
  );
}

/** Runs the consumer on `bodies`, then the messages it enqueued, until the queue is empty. */
async function drainQueue(testEnv: Env, sent: OutboxMessage[], bodies: OutboxMessage[], now: Date) {
  let pending = bodies;
  while (pending.length > 0) {
    const before = sent.length;
    await dispatchEvents(jobContext(testEnv), messages(pending), { now, timeoutMs: TIMEOUT_MS });
    pending = sent.slice(before);
  }
}

describe("webhook delivery under faults", () => {
  it("delivers every event at least once to every endpoint through failing, hanging, redirecting and closing receivers, and none to a foreign organization", async () => {
    const tenant = await newTenant();
    const foreign = await newTenant();
    const token = await adminToken(tenant.orgId);
    const foreignToken = await adminToken(foreign.orgId);
    // Each faulty receiver recovers after its first two requests (fail-first), except the flaky one.
    const targets = {
      ok: receiverUrl("ok"),
      flaky: receiverUrl("flaky"),
      failing: receiverUrl("fail-first/2"),
    };
    for (const target of Object.values(targets)) await createEndpoint(token, { url: target.url });
    const hanging = receiverUrl("hang");
    const redirecting = receiverUrl("redirect");
    const closing = receiverUrl("close");
    const badOnes = [
      await createEndpoint(token, { url: hanging.url }),
      await createEndpoint(token, { url: redirecting.url }),
      await createEndpoint(token, { url: closing.url }),
    ];
    const foreignTarget = receiverUrl("ok");
    await createEndpoint(foreignToken, { url: foreignTarget.url, events: ["*"] });

    const eventIds: string[] = [];
    for (let i = 0; i < 8; i++) eventIds.push(await insertEvent(tenant.orgId, i % 2 ? "envelope.completed" : "vault.stored", { seq: i }));

    const { queue, sent } = recordingQueue();
    const testEnv = { ...env, WEBHOOK_QUEUE: queue };
    const start = new Date();
    await drainQueue(testEnv, sent, eventIds.map((event_id) => ({ kind: "event" as const, event_id })), start);

    // The bad receivers failed in their own way, each logged.
    const firstError = async (endpointId: string) => (await attemptsOf((await deliveriesOf(endpointId))[0]!.id))[0]!;
    expect((await firstError(badOnes[0]!.endpoint_id)).error).toBe(`timed out after ${TIMEOUT_MS} ms`);
    expect(await firstError(badOnes[1]!.endpoint_id)).toMatchObject({ response_status: 302, error: expect.stringMatching(/^redirect not followed \(302 to \/ok\//) });
    expect((await firstError(badOnes[2]!.endpoint_id)).error).toMatch(/^network error/);
    expect(await received(redirecting.path.replace("/redirect/", "/ok/"))).toEqual([]); // never followed

    // The receivers recover (the bad ones are pointed at a healthy path); retries run off the sweep.
    for (const bad of badOnes) await env.DB.prepare("UPDATE webhook_endpoints SET url = ? WHERE id = ?").bind(`${targets.ok.url}-${bad.endpoint_id}`, bad.endpoint_id).run();
    // nothing hangs any more: the retries run with the service's own timeout
    for (let hour = 1; hour <= 12; hour++) await sweepDeliveries(jobContextOf(eventIds[0]!), new Date(start.getTime() + hour * HOUR));

    const paths = [...Object.values(targets).map((t) => t.path), ...badOnes.map((b) => `${targets.ok.path}-${b.endpoint_id}`)];
    for (const path of paths) {
      const got = (await received(path)).filter((r) => r.headers["x-service-signature"]);
      const okIds = new Set(got.map((r) => JSON.parse(r.body).event_id));
      expect([...okIds].sort(), path).toEqual([...eventIds].sort());
    }
    const { results } = await (await orgShardDb(tenant.orgId)).prepare("SELECT status, COUNT(*) AS n FROM webhook_deliveries WHERE org_id = ? GROUP BY status").bind(tenant.orgId).all();
    expect(results).toEqual([{ status: "succeeded", n: 6 * 8 }]);
    expect(await received(foreignTarget.path)).toEqual([]);
  }, 120_000); // two rounds of the hanging receiver's timeout, on a loaded machine

  it("loses nothing when the consumer's fan-out dies mid-batch: every event message is retried, none half-committed, and each endpoint still gets each event", async () => {
    const tenant = await newTenant();
    const token = await adminToken(tenant.orgId);
    const a = receiverUrl("ok");
    const b = receiverUrl("ok");
    await createEndpoint(token, { url: a.url });
    await createEndpoint(token, { url: b.url });
    const eventIds: string[] = [];
    for (let i = 0; i < 6; i++) eventIds.push(await insertEvent(tenant.orgId, "envelope.sent", { seq: i }));

    // A shard whose fan-out write (the batch's events together: the endpoints' anchor rows, the delivery
    // inserts, dispatched_at and the read of them, 3 statements or more) dies inside the transaction,
    // after the inserts ran: every event message of the batch must be retried, none acked.
    let writes = 0;
    const flaky = (db: D1Database) => new Proxy(db, {
      get(target, prop) {
        if (prop === "batch") {
          return (statements: D1PreparedStatement[]) => {
            const isFanOutWrite = statements.length >= 3;
            if (isFanOutWrite && ++writes === 1) return target.batch([...statements, target.prepare("INSERT INTO no_such_table VALUES (1)")]);
            return target.batch(statements);
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    // And a queue that takes nothing: every delivery message is lost.
    const lostQueue = { sendBatch: () => Promise.reject(new Error("queue unavailable")), send: () => Promise.reject(new Error("queue unavailable")) } as unknown as Queue<OutboxMessage>;
    const batch = messages(eventIds.map((event_id) => ({ kind: "event" as const, event_id })));
    const ctx = createExecutionContext();
    await dispatchEvents(jobContext(withShard({ ...env, WEBHOOK_QUEUE: lostQueue }, shardOf(eventIds[0]!), flaky)), batch);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toHaveLength(6);
    expect(result.explicitAcks).toHaveLength(0);
    // Nothing of the failed batch committed: every event is still undispatched, with no deliveries.
    const undispatched = await (await orgShardDb(tenant.orgId)).prepare("SELECT id FROM events WHERE org_id = ? AND dispatched_at IS NULL").bind(tenant.orgId).all<{ id: string }>();
    expect(undispatched.results.map((r) => r.id).sort()).toEqual([...eventIds].sort());
    const orphans = await (await orgShardDb(tenant.orgId)).prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE org_id = ?").bind(tenant.orgId).first<{ n: number }>();
    expect(orphans!.n).toBe(0);

    // The queue retries the messages (or, if it never does, the relay re-enqueues them); the consumer sends.
    const { queue, sent } = recordingQueue();
    const later = new Date(Date.now() + 60_000);
    await relayOutbox(jobContextOf(eventIds[0]!, { ...env, WEBHOOK_QUEUE: queue }), later);
    expect(sent.map((m) => (m.kind === "event" ? m.event_id : "")).sort()).toEqual([...eventIds].sort());
    await dispatchEvents(jobContext({ ...env, WEBHOOK_QUEUE: lostQueue }), messages(sent));
    await sweepDeliveries(jobContextOf(eventIds[0]!), later);

    for (const target of [a, b]) {
      const ids = (await received(target.path)).map((r) => JSON.parse(r.body).event_id);
      expect([...new Set(ids)].sort()).toEqual([...eventIds].sort());
    }
    // A duplicate event message fans out nothing twice (unique endpoint+event index).
    await dispatchEvents(jobContext({ ...env, WEBHOOK_QUEUE: lostQueue }), messages([{ kind: "event", event_id: eventIds[0]! }]));
    const count = await (await orgShardDb(tenant.orgId)).prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE org_id = ?").bind(tenant.orgId).first<{ n: number }>();
    expect(count!.n).toBe(12);
  });

  it("resends a delivery whose sender died mid-attempt once its claim lapses", async () => {
    const { t: tenant, token, target, ep } = await tenantWithEndpoint("ok");
    const eventId = await insertEvent(tenant.orgId);
    const { queue } = recordingQueue();
    const now = new Date();
    const [deliveryId] = await fanOutEvent(jobContextOf(eventId), { eventId, now });
    // A sender claimed it and died before sending: the row is pending with a claim in the future.
    await shardDbOf(deliveryId!).prepare("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE endpoint_id = ?").bind(new Date(now.getTime() + 2 * 60_000).toISOString(), ep.endpoint_id).run();
    await dispatchEvents(jobContext({ ...env, WEBHOOK_QUEUE: queue }), messages([{ kind: "delivery", delivery_id: deliveryId! }]), { now }); // the message arrives: not due, skipped
    await sweepDeliveries(jobContextOf(deliveryId!), new Date(now.getTime() + 60_000));
    expect(await received(target.path)).toEqual([]);
    await sweepDeliveries(jobContextOf(deliveryId!), new Date(now.getTime() + 2 * 60_000 + 1));
    expect(await received(target.path)).toHaveLength(1);
    expect((await deliveriesOf(ep.endpoint_id))[0]).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("fans out an event the queue never consumed (a stalled consumer) once it is 5 minutes old, and the sweep delivers it with no consumer run", async () => {
    // The soak found events undispatched after the catch-up: its local queue ran no consumer batch after one
    // that never returned, so every event the relay put on the queue stayed there, re-queued every minute.
    const { t: tenant, target, ep } = await tenantWithEndpoint("ok");
    const eventId = await insertEvent(tenant.orgId, "envelope.sent");
    const written = Date.now();
    // a queue that takes every message and never delivers one: no consumer ever runs in this test
    const { queue, sent } = recordingQueue();
    const relay = (msAfter: number) => relayOutbox(jobContextOf(eventId, { ...env, WEBHOOK_QUEUE: queue }), new Date(written + msAfter));

    // the first minutes: the relay hands the event to the queue, as before
    expect(await relay(60_000)).toEqual({ relayed: 1, fannedOut: 0 });
    expect(sent).toEqual([{ kind: "event", event_id: eventId }]);
    expect(await deliveriesOf(ep.endpoint_id)).toEqual([]);

    // past RELAY_FAN_OUT_AFTER_MS the relay fans it out itself: one delivery, due, handed to the queue as a delivery message
    expect(await relay(RELAY_FAN_OUT_AFTER_MS + 1_000)).toEqual({ relayed: 0, fannedOut: 1 });
    const [delivery] = await deliveriesOf(ep.endpoint_id);
    expect(delivery).toMatchObject({ event_id: eventId, status: "pending", attempts: 0 });
    expect(sent.at(-1)).toEqual({ kind: "delivery", delivery_id: delivery!.id });
    const event = await shardDbOf(eventId).prepare("SELECT dispatched_at FROM events WHERE id = ?").bind(eventId).first<{ dispatched_at: string | null }>();
    expect(event?.dispatched_at).not.toBeNull();
    // and the next relay has nothing left for the queue
    expect(await relay(RELAY_FAN_OUT_AFTER_MS + 2_000)).toEqual({ relayed: 0, fannedOut: 0 });

    // the delivery message is never consumed either: the sweep sends it, once
    await sweepDeliveries(jobContextOf(delivery!.id), new Date(written + RELAY_FAN_OUT_AFTER_MS + 3_000));
    expect((await received(target.path)).map((r) => JSON.parse(r.body).event_id)).toEqual([eventId]);
    expect((await deliveriesOf(ep.endpoint_id))[0]).toMatchObject({ status: "succeeded", attempts: 1 });
  });
});
