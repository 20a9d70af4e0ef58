import { createMessageBatch, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env, OutboxMessage } from "../../src/env";
import { dispatchEvents } from "../../src/jobs/dispatch-events";
import { sweepDeliveries } from "../../src/jobs/sweep-deliveries";
import { relayOutbox } from "../../src/jobs/relay-outbox";
import { publishEvents } from "../../src/services/webhooks/publish";
import { CLAIM_LEASE_MS } from "../../src/services/webhooks/deliver";
import { createEnvelope as createEnvelopeThroughApi } from "../helpers/api";
import { createEnvelope } from "../../src/services/compose/create-envelope";
import { jobContext, jobContextOf, orgContextOn } from "../helpers/context";
import { deliveriesOf, insertEvent, received, tenantWithEndpoint, waitForRequests } from "../helpers/webhooks";
import { shardDbOf, withEveryDb, withShard } from "../helpers/shards";
import { shardOf } from "../../src/lib/shards";

/** A queue stand-in that records what is sent (with its options), so the test decides when the consumer runs. */
function recordingQueue() {
  const sent: { body: OutboxMessage; delaySeconds?: number }[] = [];
  const queue = {
    send: async (body: OutboxMessage, opts?: QueueSendOptions) => void sent.push({ body, delaySeconds: opts?.delaySeconds }),
    sendBatch: async (batch: Iterable<MessageSendRequest<OutboxMessage>>) => void sent.push(...[...batch].map((m) => ({ body: m.body, delaySeconds: m.delaySeconds }))),
  } as unknown as Queue<OutboxMessage>;
  return { queue, sent };
}

const messages = (bodies: OutboxMessage[]) =>
  createMessageBatch<OutboxMessage>(
    "esign-vault-webhooks",
    bodies.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
  );

/** `db` with its batches of the sizes `size` picks failing, as a write that dies in D1. */
function dbFailingBatchesOf(db: D1Database, size: (n: number) => boolean): D1Database {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "batch") {
        return (statements: D1PreparedStatement[]) => (size(statements.length) ? Promise.reject(new Error("D1 write failed")) : target.batch(statements));
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const eventRow = async (envelopeId: string) =>
  (await shardDbOf(envelopeId).prepare("SELECT id, created_at, dispatched_at FROM events WHERE envelope_id = ? AND type = 'envelope.created'")
    .bind(envelopeId)
    .first<{ id: string; created_at: string; dispatched_at: string | null }>())!;

const eventOf = async (envelopeId: string) =>
  (await shardDbOf(envelopeId).prepare("SELECT id FROM events WHERE envelope_id = ? AND type = 'envelope.created'").bind(envelopeId).first<{ id: string }>())!.id;

describe("webhooks delivered right after commit", () => {
  it("delivers an event once right after the request that committed it, and neither the queue consumer nor the sweep sends it again", async () => {
    const { t, target, ep } = await tenantWithEndpoint("ok", ["envelope.created"]);
    const envelope = await createEnvelopeThroughApi(t.key);
    const got = await waitForRequests(target.path, 1);
    expect(got).toHaveLength(1);
    const eventId = await eventOf(envelope.envelope_id);
    expect(JSON.parse(got[0]!.body)).toMatchObject({ event_type: "envelope.created", event_id: eventId, envelope_id: envelope.envelope_id });
    expect(got[0]!.headers["webhook-id"]).toBe(eventId);

    // A stray event message arrives (a relay, a redelivered message), and later sweeps run: nothing is sent again.
    await dispatchEvents(jobContext(), messages([{ kind: "event", event_id: eventId }]));
    await sweepDeliveries(jobContextOf(eventId), new Date(Date.now() + 60_000));
    await sweepDeliveries(jobContextOf(eventId), new Date(Date.now() + CLAIM_LEASE_MS + 60_000));
    expect(await received(target.path)).toHaveLength(1);
    const [delivery, ...others] = await deliveriesOf(ep.endpoint_id);
    expect(others).toEqual([]);
    expect(delivery).toMatchObject({ status: "succeeded", attempts: 1, next_attempt_at: null });
  });

  it("keeps the queue as the safety net: the event goes on it at once if the fan-out fails, and the relay takes it if the request died first", async () => {
    const { t, target } = await tenantWithEndpoint("ok");
    const eventId = await insertEvent(t.orgId, "envelope.sent");
    const { queue, sent } = recordingQueue();
    // The fan-out's batch (deliveries, dispatched_at, the read) dies in D1: nothing commits.
    await publishEvents(jobContextOf(eventId, withShard({ ...env, WEBHOOK_QUEUE: queue } as Env, shardOf(eventId), (db) => dbFailingBatchesOf(db, (n) => n >= 2))), [eventId]);
    expect(await received(target.path)).toEqual([]);
    expect(sent).toEqual([{ body: { kind: "event", event_id: eventId }, delaySeconds: undefined }]);
    // The consumer gets the message and delivers the event itself, once.
    await dispatchEvents(jobContext({ ...env, WEBHOOK_QUEUE: queue }), messages(sent.map((m) => m.body)));
    expect((await received(target.path)).map((r) => JSON.parse(r.body).event_id)).toEqual([eventId]);

    // A request that died before its fan-out left the event undispatched: the minute relay queues it.
    const orphan = await insertEvent(t.orgId, "signer.viewed");
    const relayed = recordingQueue();
    await relayOutbox(jobContextOf(orphan, { ...env, WEBHOOK_QUEUE: relayed.queue }), new Date(Date.now() + 31_000));
    expect(relayed.sent.map((m) => m.body)).toContainEqual({ kind: "event", event_id: orphan });
    await dispatchEvents(jobContext({ ...env, WEBHOOK_QUEUE: relayed.queue }), messages([{ kind: "event", event_id: orphan }]));
    expect((await received(target.path)).map((r) => JSON.parse(r.body).event_id)).toEqual([eventId, orphan]);
  });

  it("an event of an organization with no endpoint is dispatched in one round trip, and puts nothing on the queue", async () => {
    const { t } = await tenantWithEndpoint("ok");
    await env.DB.prepare("UPDATE webhook_endpoints SET deleted_at = ? WHERE org_id = ?").bind(new Date().toISOString(), t.orgId).run();
    const eventId = await insertEvent(t.orgId, "envelope.sent");
    const { queue, sent } = recordingQueue();
    let batches = 0;
    // every database's batches count (the global one's and each shard's): one round trip in all
    const counting = (db: D1Database) =>
      new Proxy(db, {
        get(target, prop) {
          if (prop === "batch") return (statements: D1PreparedStatement[]) => ((batches += 1), target.batch(statements));
          const value = Reflect.get(target, prop);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    await publishEvents(jobContextOf(eventId, withEveryDb({ ...env, WEBHOOK_QUEUE: queue } as Env, counting)), [eventId]);
    expect(batches).toBe(1);
    expect(sent).toEqual([]);
    const row = await shardDbOf(eventId).prepare("SELECT dispatched_at FROM events WHERE id = ?").bind(eventId).first<{ dispatched_at: string | null }>();
    expect(row?.dispatched_at).not.toBeNull();
  });

  it("a create in an organization with no live endpoint commits its event dispatched in the create's own batch: nothing to publish, no second round trip", async () => {
    const { t, target } = await tenantWithEndpoint("ok");
    const published: string[] = [];
    const create = async (orgId: string) => {
      const ctx = { ...(await orgContextOn(orgId)), publish: (...ids: string[]) => void published.push(...ids) };
      return createEnvelope(ctx, { body: { envelope_name: "Contract", customer_email: "buyer@example.com", customer_name: "Buyer" } });
    };
    // with a live endpoint the event is published (and fanned out) as before
    const withEndpoint = await create(t.orgId);
    const first = await eventRow(withEndpoint.id);
    expect(first.dispatched_at).toBeNull();
    expect(published).toEqual([first.id]);

    await env.DB.prepare("UPDATE webhook_endpoints SET deleted_at = ? WHERE org_id = ?").bind(new Date().toISOString(), t.orgId).run();
    const without = await create(t.orgId);
    const second = await eventRow(without.id);
    expect(second.dispatched_at).toBe(second.created_at);
    expect(published).toEqual([first.id]);
    // and the relay never picks it up later
    const { queue, sent } = recordingQueue();
    await relayOutbox(jobContextOf(second.id, { ...env, WEBHOOK_QUEUE: queue }), new Date(Date.now() + 31_000));
    expect(sent.map((m) => m.body)).not.toContainEqual({ kind: "event", event_id: second.id });
    expect(await received(target.path)).toEqual([]);
  });

  it("if the immediate attempt dies before it is recorded, the sweep sends it again once the claim lapses (same webhook-id, for the receiver to deduplicate)", async () => {
    const { t, target, ep } = await tenantWithEndpoint("ok");
    const eventId = await insertEvent(t.orgId, "envelope.completed");
    const { queue, sent } = recordingQueue();
    const now = new Date();
    // The fan-out (one batch: the claimed delivery, dispatched_at and the read of it) commits; the second batch, the record, dies.
    let calls = 0;
    await publishEvents(jobContextOf(eventId, withShard({ ...env, WEBHOOK_QUEUE: queue }, shardOf(eventId), (db) => dbFailingBatchesOf(db, () => ++calls === 2))), [eventId]);
    expect(await received(target.path)).toHaveLength(1);
    const [claimed] = await deliveriesOf(ep.endpoint_id);
    expect(claimed).toMatchObject({ status: "pending", attempts: 0 });

    // Neither a queue message nor a sweep inside the claim sends it; the sweep after the claim does.
    await dispatchEvents(jobContext({ ...env, WEBHOOK_QUEUE: queue }), messages(sent.map((m) => m.body)));
    await sweepDeliveries(jobContextOf(eventId), new Date(now.getTime() + 60_000));
    expect(await received(target.path)).toHaveLength(1);
    await sweepDeliveries(jobContextOf(eventId), new Date(now.getTime() + CLAIM_LEASE_MS + 1000));
    const got = await received(target.path);
    expect(got).toHaveLength(2);
    expect(new Set(got.map((r) => r.headers["webhook-id"]))).toEqual(new Set([eventId]));
    expect((await deliveriesOf(ep.endpoint_id))[0]).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("the queue consumer sends the first attempts of an event it fans out itself, without a second queue hop", async () => {
    const { t, target, ep } = await tenantWithEndpoint("ok");
    const eventId = await insertEvent(t.orgId, "envelope.voided");
    const { queue, sent } = recordingQueue();
    await dispatchEvents(jobContext({ ...env, WEBHOOK_QUEUE: queue }), messages([{ kind: "event", event_id: eventId }]));
    expect((await received(target.path)).map((r) => JSON.parse(r.body).event_id)).toEqual([eventId]);
    expect(sent).toEqual([]);
    expect((await deliveriesOf(ep.endpoint_id))[0]).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("does not send at once to a paused endpoint: the delivery waits, pending and due, as before", async () => {
    const { t, target, ep } = await tenantWithEndpoint("ok");
    await env.DB.prepare("UPDATE webhook_endpoints SET paused_at = ? WHERE id = ?").bind(new Date().toISOString(), ep.endpoint_id).run();
    const eventId = await insertEvent(t.orgId, "envelope.sent");
    const { queue } = recordingQueue();
    await publishEvents(jobContextOf(eventId, { ...env, WEBHOOK_QUEUE: queue }), [eventId]);
    expect(await received(target.path)).toEqual([]);
    const [delivery] = await deliveriesOf(ep.endpoint_id);
    expect(delivery).toMatchObject({ status: "pending", attempts: 0 });
    expect(Date.parse(delivery!.next_attempt_at!)).toBeLessThanOrEqual(Date.now());
  });
});
