import type { OutboxMessage } from "../env";
import type { RequestContext } from "../lib/context";
import { forEachConcurrently } from "../lib/concurrency";
import { deliverWebhook, type DeliverOptions } from "../services/webhooks/deliver";
import { deliverNow } from "../services/webhooks/deliver-now";

/** Messages of one batch handled at once: deliveries spend their time waiting on receivers. */
const CONCURRENCY = 25;
/** First attempts one batch sends itself (subrequests per invocation are bounded); the rest go back on the queue. */
const INLINE_DELIVERIES = 150;

/**
 * Queue consumer. Most event messages are the delayed safety net of an event the request that
 * committed it already fanned out and delivered (services/events/publish.ts): one query for the whole
 * batch finds those dispatched, and they are acked without more work. An event still undispatched is
 * fanned out to its organization's matching endpoints (one delivery row each, committed with the
 * event's `dispatched_at`), and the first attempts are sent right here (claimed in the fan-out's
 * batch), up to INLINE_DELIVERIES per batch; the rest go on the queue as delivery messages. A delivery
 * message sends that delivery if it is still due. A message whose work throws is retried by the
 * queue; nothing is lost either way, since the relay and the sweep read the database.
 */
export async function dispatchEvents(ctx: RequestContext, batch: MessageBatch<OutboxMessage>, opts: DeliverOptions = {}): Promise<void> {
  const dispatched = await dispatchedEvents(ctx, batch.messages);
  let inlineLeft = INLINE_DELIVERIES;
  await forEachConcurrently(batch.messages, CONCURRENCY, async (message) => {
    try {
      const body = message.body;
      if (body.kind === "delivery") {
        await deliverWebhook(ctx, { ...opts, deliveryId: body.delivery_id });
      } else if (!dispatched.has(body.event_id)) {
        const claimMax = Math.max(0, Math.min(inlineLeft, 25));
        inlineLeft -= claimMax;
        await deliverNow(ctx, { ...opts, eventId: body.event_id, claimMax });
      }
      message.ack();
    } catch (err) {
      console.error("webhook queue message failed", JSON.stringify(message.body), err);
      message.retry();
    }
  });
}

/** The batch's event messages whose event is already dispatched, in one query (a failed read: none, each message then checks itself). */
async function dispatchedEvents(ctx: RequestContext, messages: readonly Message<OutboxMessage>[]): Promise<Set<string>> {
  const ids = [...new Set(messages.flatMap((m) => (m.body.kind === "event" ? [m.body.event_id] : [])))];
  if (ids.length === 0) return new Set();
  try {
    const { results } = await ctx.db
      .prepare("SELECT id FROM events WHERE id IN (SELECT value FROM json_each(?)) AND dispatched_at IS NOT NULL")
      .bind(JSON.stringify(ids))
      .all<{ id: string }>();
    return new Set(results.map((r) => r.id));
  } catch (err) {
    console.warn("webhook consumer: dispatched check failed", err);
    return new Set();
  }
}
