import type { OutboxMessage } from "../env";
import { onShard, onShardOf, type RequestContext } from "../lib/context";
import { shardOf } from "../lib/shards";
import { dispatchedEventIds } from "../services/events/repository";
import { deliverWebhooks, type DeliverOptions } from "../services/webhooks/deliver";
import { deliverNow, enqueueDeliveries } from "../services/webhooks/deliver-now";

/**
 * Queue consumer. Most event messages are the delayed safety net of an event the invocation that
 * committed it already fanned out and delivered (services/webhooks/publish.ts): one query for the whole
 * batch finds those dispatched, and they are acked without more work. The events still undispatched
 * are fanned out together, in one D1 round trip, to their organizations' matching endpoints (one
 * delivery row each, committed with the events' `dispatched_at`), and the first attempts are sent
 * right here (claimed in the fan-out's batch), up to IMMEDIATE_DELIVERIES per batch; the rest go on
 * the queue as delivery messages. A delivery message sends that delivery if it is still due: the batch's
 * delivery messages of one shard are claimed, read, attempted and recorded together (deliver.ts
 * deliverWebhooks: four round trips for the lot, not three a delivery), shards side by side. Each
 * message is handled on the shard its id names (`evt_2_…`, `wdel_2_…`; an untagged id: shard 1),
 * the batch grouped by shard (docs/decisions/shards.md 3, "Queues"). A
 * message whose work throws is retried by the queue; nothing is lost either way, since the relay and
 * the sweep read the database.
 */
export async function dispatchEvents(ctx: RequestContext, batch: MessageBatch<OutboxMessage>, opts: DeliverOptions = {}): Promise<void> {
  const dispatched = await dispatchedEvents(ctx, batch.messages);
  const events = batch.messages.flatMap((m) => (m.body.kind === "event" && !dispatched.has(m.body.event_id) ? [{ message: m, eventId: m.body.event_id }] : []));
  const deliveries = batch.messages.flatMap((m) => (m.body.kind === "delivery" ? [{ message: m, deliveryId: m.body.delivery_id }] : []));
  for (const m of batch.messages) if (m.body.kind === "event" && dispatched.has(m.body.event_id)) m.ack();
  const fanOut = async () => {
    if (events.length === 0) return;
    try {
      await deliverNow(ctx, { ...opts, eventIds: events.map((e) => e.eventId) });
      for (const e of events) e.message.ack();
    } catch (err) {
      console.error("webhook queue: fan-out of", events.length, "events failed", err);
      for (const e of events) e.message.retry();
    }
  };
  const byShard = new Map<number, typeof deliveries>();
  for (const d of deliveries) byShard.set(shardOf(d.deliveryId), [...(byShard.get(shardOf(d.deliveryId)) ?? []), d]);
  const send = async (shardDeliveries: typeof deliveries) => {
    try {
      const { released } = await deliverWebhooks(onShardOf(ctx, shardDeliveries[0]!.deliveryId), { ...opts, deliveryIds: shardDeliveries.map((d) => d.deliveryId) });
      // those a slow receiver kept from starting are due again: queued anew (or swept), these messages done
      await enqueueDeliveries(ctx, released);
      for (const d of shardDeliveries) d.message.ack();
    } catch (err) {
      // nothing claimed: the retries send them; claimed and not recorded: the sweep, once the claim lapses
      console.error("webhook queue: deliveries of a shard failed", shardDeliveries.length, err);
      for (const d of shardDeliveries) d.message.retry();
    }
  };
  await Promise.all([fanOut(), ...[...byShard.values()].map(send)]);
}

/**
 * The batch's event messages whose event is already dispatched, in one query per shard (a failed read:
 * none of that shard's, each message then checks itself).
 */
async function dispatchedEvents(ctx: RequestContext, messages: readonly Message<OutboxMessage>[]): Promise<Set<string>> {
  const ids = [...new Set(messages.flatMap((m) => (m.body.kind === "event" ? [m.body.event_id] : [])))];
  const byShard = new Map<number, string[]>();
  for (const id of ids) byShard.set(shardOf(id), [...(byShard.get(shardOf(id)) ?? []), id]);
  const found = await Promise.all(
    [...byShard].map(async ([shard, shardIds]) => {
      try {
        return await dispatchedEventIds(onShard(ctx, shard, true).db, shardIds);
      } catch (err) {
        console.warn("webhook consumer: dispatched check failed", shard, err);
        return [];
      }
    }),
  );
  return new Set(found.flat());
}
