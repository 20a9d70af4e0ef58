import type { Env, OutboxMessage } from "../env";
import type { RequestContext } from "../lib/context";
import { forEachConcurrently } from "../lib/concurrency";
import { deliverWebhook, type DeliverOptions } from "../services/webhooks/deliver";
import { fanOutEvent } from "../services/webhooks/fan-out";

/** Messages of one batch handled at once: deliveries spend their time waiting on receivers. */
const CONCURRENCY = 25;
const SEND_BATCH = 100; // Queue#sendBatch takes at most 100 messages

/**
 * Queue consumer. An event message fans the event out to its organization's matching endpoints (one
 * delivery row each, committed with the event's `dispatched_at`) and puts each new delivery on the
 * queue; a delivery message sends that delivery if it is still due. A message whose work throws is
 * retried by the queue; nothing is lost either way, since the relay and the sweep read the database.
 */
export async function dispatchEvents(ctx: RequestContext, batch: MessageBatch<OutboxMessage>, opts: DeliverOptions = {}): Promise<void> {
  const env = ctx.env;
  await forEachConcurrently(batch.messages, CONCURRENCY, async (message) => {
    try {
      const body = message.body;
      if (body.kind === "delivery") {
        await deliverWebhook(ctx, { ...opts, deliveryId: body.delivery_id });
      } else {
        const created = await fanOutEvent(ctx, { eventId: body.event_id, now: opts.now });
        await enqueueDeliveries(env, created);
      }
      message.ack();
    } catch (err) {
      console.error("webhook queue message failed", JSON.stringify(message.body), err);
      message.retry();
    }
  });
}

/** The fast path for new deliveries; if it fails they are already due, and the sweep sends them. */
async function enqueueDeliveries(env: Env, deliveryIds: string[]): Promise<void> {
  for (let i = 0; i < deliveryIds.length; i += SEND_BATCH) {
    const chunk = deliveryIds.slice(i, i + SEND_BATCH);
    try {
      await env.WEBHOOK_QUEUE.sendBatch(chunk.map((id) => ({ body: { kind: "delivery" as const, delivery_id: id } })));
    } catch (err) {
      console.warn("delivery fast path failed; the sweep will send them", chunk.length, err);
    }
  }
}
