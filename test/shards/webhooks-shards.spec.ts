import { createMessageBatch, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env, OutboxMessage } from "../../src/env";
import { dispatchEvents } from "../../src/jobs/dispatch-events";
import { sweepDeliveries } from "../../src/jobs/sweep-deliveries";
import { publishEvents } from "../../src/services/webhooks/publish";
import { call, newTenant, operator } from "../helpers/api";
import { jobContext, jobContextOn } from "../helpers/context";
import { globalDb, shardDb } from "../helpers/shards";
import { adminToken, attemptsOf, createEndpoint, deliveriesOf, insertEvent, received, receiverUrl, recordingQueue } from "../helpers/webhooks";

/**
 * Webhooks across the global database and the shards (docs/decisions/shards.md): endpoints and their
 * health are global rows, events, deliveries and attempts rows of the event's shard, found by the
 * shard number their ids carry. Needs the pool's SHARD_2 (organizations placed on shard 2).
 */

async function orgOnShard(shard: number, behaviour = "ok") {
  const t = await newTenant({ shard });
  const token = await adminToken(t.orgId);
  const target = receiverUrl(behaviour);
  const ep = await createEndpoint(token, { url: target.url });
  return { t, token, target, ep };
}

const moveOrg = async (orgId: string, shard: number) => expect((await operator("PATCH", `/orgs/${orgId}`, { current_shard_id: shard })).status).toBe(200);

const countOn = async (db: D1Database, sql: string, ...params: unknown[]) => (await db.prepare(sql).bind(...params).first<{ n: number }>())!.n;

describe("webhooks of an organization on shard 2", () => {
  it("delivers its event: the endpoint stays global, the delivery and its attempt are on shard 2 under ids naming it", async () => {
    const { t, target, ep } = await orgOnShard(2);
    const eventId = await insertEvent(t.orgId, "envelope.completed");
    expect(eventId).toMatch(/^evt_2_/);

    // published from a context on shard 1 (as a request's `publish` hands them on): the event's id routes it
    await publishEvents(jobContext(), [eventId]);

    const requests = await received(target.path);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.headers["webhook-id"]).toBe(eventId);
    const deliveries = await shardDb(2).prepare("SELECT * FROM webhook_deliveries WHERE event_id = ?").bind(eventId).all<{ id: string; status: string; endpoint_id: string }>();
    expect(deliveries.results).toEqual([expect.objectContaining({ endpoint_id: ep.endpoint_id, status: "succeeded" })]);
    const deliveryId = deliveries.results[0]!.id;
    expect(deliveryId).toMatch(/^wdel_2_/);
    expect(requests[0]!.headers["x-service-delivery"]).toBe(deliveryId);
    expect(await attemptsOf(deliveryId)).toEqual([expect.objectContaining({ attempt: 1, succeeded: 1, response_status: 200 })]);
    // the global database holds the endpoint and none of the per-event rows
    expect(await countOn(globalDb, "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE event_id = ?", eventId)).toBe(0);
    expect(await globalDb.prepare("SELECT url, is_active, deleted_at FROM webhook_endpoints WHERE id = ?").bind(ep.endpoint_id).first()).toEqual({
      url: target.url,
      is_active: 1,
      deleted_at: null,
    });
    // shard 2 holds only the endpoint's anchor: no URL, inactive, deleted, never a target
    expect(await shardDb(2).prepare("SELECT url, is_active, deleted_at IS NOT NULL AS deleted FROM webhook_endpoints WHERE id = ?").bind(ep.endpoint_id).first()).toEqual({
      url: "",
      is_active: 0,
      deleted: 1,
    });
  });

  it("the queue consumer handles event and delivery messages on the shard their ids name", async () => {
    const { t, target } = await orgOnShard(2);
    const first = await insertEvent(t.orgId, "envelope.sent");
    const { queue, sent } = recordingQueue();
    // an event message: fanned out and first attempt sent on shard 2
    await dispatchEvents(
      jobContext({ ...env, WEBHOOK_QUEUE: queue } as Env),
      createMessageBatch<OutboxMessage>("esign-vault-webhooks", [{ id: "m1", timestamp: new Date(), attempts: 1, body: { kind: "event", event_id: first } }]),
    );
    expect(await received(target.path)).toHaveLength(1);
    // a delivery message (a redelivery, due at once) of a shard-2 delivery
    const [delivery] = await deliveriesOf((await shardDb(2).prepare("SELECT endpoint_id FROM webhook_deliveries WHERE event_id = ?").bind(first).first<{ endpoint_id: string }>())!.endpoint_id);
    const token = await adminToken(t.orgId);
    const replay = await call("POST", `/webhooks/deliveries/${delivery!.id}/redeliver`, { bearer: token, body: {} });
    expect(replay.status).toBe(202);
    const replayId = replay.body.data.delivery_id as string;
    expect(replayId).toMatch(/^wdel_2_/);
    await dispatchEvents(
      jobContext({ ...env, WEBHOOK_QUEUE: queue } as Env),
      createMessageBatch<OutboxMessage>("esign-vault-webhooks", [{ id: "m2", timestamp: new Date(), attempts: 1, body: { kind: "delivery", delivery_id: replayId } }]),
    );
    expect(await received(target.path)).toHaveLength(2);
    expect(sent).toEqual([]);
  });

  it("writes endpoint health to the global database, and pauses the endpoint with its event on the organization's current shard", async () => {
    const { t, ep } = await orgOnShard(2, "fail");
    const fourDaysAgo = new Date(Date.now() - 4 * 24 * 3_600_000).toISOString();
    await globalDb.prepare("UPDATE webhook_endpoints SET consecutive_failures = 19, failing_since = ? WHERE id = ?").bind(fourDaysAgo, ep.endpoint_id).run();
    const eventId = await insertEvent(t.orgId, "envelope.completed");
    const { queue } = recordingQueue();
    // failing past the back-off: not sent at once, queued; the shard-2 sweep sends its one probe
    await publishEvents(jobContext({ ...env, WEBHOOK_QUEUE: queue } as Env), [eventId]);
    const now = new Date();
    expect((await sweepDeliveries(jobContextOn(2), now, { budgetMs: 1 })).attempted).toBeGreaterThanOrEqual(1);

    const health = await globalDb.prepare("SELECT consecutive_failures, paused_at FROM webhook_endpoints WHERE id = ?").bind(ep.endpoint_id).first<{ consecutive_failures: number; paused_at: string | null }>();
    expect(health).toEqual({ consecutive_failures: 20, paused_at: now.toISOString() });
    const paused = await shardDb(2).prepare("SELECT id, data FROM events WHERE org_id = ? AND type = 'webhook.endpoint_paused'").bind(t.orgId).all<{ id: string; data: string }>();
    expect(paused.results).toHaveLength(1);
    expect(paused.results[0]!.id).toMatch(/^evt_2_/);
    expect(JSON.parse(paused.results[0]!.data)).toMatchObject({ endpoint_id: ep.endpoint_id, consecutive_failures: 20 });
    // the console shows it paused (read from global)
    const token = await adminToken(t.orgId);
    const list = await call("GET", "/webhooks/endpoints", { bearer: token });
    expect(list.body.data.find((e: { endpoint_id: string }) => e.endpoint_id === ep.endpoint_id)).toMatchObject({ state: "paused" });
  });
});

describe("an organization moved from shard 1 to shard 2", () => {
  it("lists an endpoint's deliveries from both shards, newest first, with the summed total and a correct second page", async () => {
    const { t, token, ep } = await orgOnShard(1);
    const older = await insertEvent(t.orgId, "envelope.sent");
    await publishEvents(jobContext(), [older]);
    await moveOrg(t.orgId, 2);
    const newer = await insertEvent(t.orgId, "envelope.completed");
    expect(newer).toMatch(/^evt_2_/);
    await publishEvents(jobContext(), [newer]);

    const page1 = await call("GET", `/webhooks/endpoints/${ep.endpoint_id}/deliveries?limit=1&page=1`, { bearer: token });
    const page2 = await call("GET", `/webhooks/endpoints/${ep.endpoint_id}/deliveries?limit=1&page=2`, { bearer: token });
    expect(page1.status).toBe(200);
    expect(page1.body.meta.total).toBe(2);
    expect(page1.body.data.map((d: { event_id: string }) => d.event_id)).toEqual([newer]);
    expect(page2.body.data.map((d: { event_id: string }) => d.event_id)).toEqual([older]);
    // each delivery is read by its id from its own shard
    for (const d of [...page1.body.data, ...page2.body.data] as { delivery_id: string; event_id: string }[]) {
      const one = await call("GET", `/webhooks/deliveries/${d.delivery_id}`, { bearer: token });
      expect(one.status).toBe(200);
      expect(one.body.data.payload.event_id).toBe(d.event_id);
    }
  });

  it("disabling the endpoint fails its pending deliveries on both shards", async () => {
    const { t, token, ep } = await orgOnShard(1, "fail");
    const older = await insertEvent(t.orgId, "envelope.sent");
    await publishEvents(jobContext(), [older]);
    await moveOrg(t.orgId, 2);
    const newer = await insertEvent(t.orgId, "envelope.sent");
    await publishEvents(jobContext(), [newer]);
    const before = await deliveriesOf(ep.endpoint_id);
    expect(before.map((d) => d.status)).toEqual(["pending", "pending"]);

    const res = await call("PATCH", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token, body: { is_active: false } });
    expect(res.status).toBe(200);

    const after = await deliveriesOf(ep.endpoint_id);
    expect(after.map((d) => [d.event_id, d.status, d.last_error])).toEqual([
      [older, "failed", "endpoint disabled"],
      [newer, "failed", "endpoint disabled"],
    ]);
  });

  it("sends a console test event on the organization's current shard", async () => {
    const { t, token, target, ep } = await orgOnShard(1);
    await moveOrg(t.orgId, 2);
    const res = await call("POST", `/webhooks/endpoints/${ep.endpoint_id}/test`, { bearer: token, body: {} });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ success: true });
    expect(res.body.data.delivery_id).toMatch(/^wdel_2_/);
    expect(res.body.data.event_id).toMatch(/^evt_2_/);
    expect(await received(target.path)).toHaveLength(1);
    expect(await countOn(shardDb(2), "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE id = ?", res.body.data.delivery_id)).toBe(1);
  });
});

describe("a delivery id naming a shard this deployment does not bind", () => {
  const unbound = `wdel_7_${"0".repeat(26)}`;

  it("is the ordinary 404 on read and redeliver, never a 500", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const read = await call("GET", `/webhooks/deliveries/${unbound}`, { bearer: token });
    expect(read.status).toBe(404);
    const replay = await call("POST", `/webhooks/deliveries/${unbound}/redeliver`, { bearer: token, body: {} });
    expect(replay.status).toBe(404);
  });

  it("is acked by the queue consumer with nothing sent", async () => {
    const { queue, sent } = recordingQueue();
    const acked: string[] = [];
    const retried: string[] = [];
    const batch = createMessageBatch<OutboxMessage>("esign-vault-webhooks", [
      { id: "d", timestamp: new Date(), attempts: 1, body: { kind: "delivery", delivery_id: unbound } },
      { id: "e", timestamp: new Date(), attempts: 1, body: { kind: "event", event_id: `evt_7_${"0".repeat(26)}` } },
    ]);
    for (const m of batch.messages) {
      (m as { ack: () => void }).ack = () => void acked.push(m.id);
      (m as { retry: () => void }).retry = () => void retried.push(m.id);
    }
    await dispatchEvents(jobContext({ ...env, WEBHOOK_QUEUE: queue } as Env), batch);
    expect(acked.sort()).toEqual(["d", "e"]);
    expect(retried).toEqual([]);
    expect(sent).toEqual([]);
  });
});
