import type { OutboxMessage } from "../../env";
import type { RequestContext } from "../../lib/context";
import { deliverNow } from "../webhooks/deliver-now";

/**
 * `ctx.publish` of the request surfaces (issue 17): right after commit, in the request's `waitUntil`,
 * fan the event out and send each first attempt at once (webhooks/deliver-now.ts), so a receiver
 * hears of a change within a second instead of after two queue hops. If the fan-out fails, the event
 * goes on the queue at once. If the invocation dies before the fan-out commits, the event stays
 * undispatched and the every-minute relay (jobs/relay-outbox.ts) puts it on the queue after 30 s; if
 * it dies after, the deliveries are claimed and the sweep sends them once the claim lapses. So no
 * message per event is needed as a net: the outbox row is the net. Never throws.
 */
export async function publishEvent(ctx: RequestContext, eventId: string): Promise<void> {
  try {
    await deliverNow(ctx, { eventId });
  } catch (err) {
    console.warn("immediate webhook fan-out failed; handing the event to the queue", eventId, err);
    const message: OutboxMessage = { kind: "event", event_id: eventId };
    await ctx.env.WEBHOOK_QUEUE.send(message).catch((e: unknown) => console.warn("outbox fast path failed; the relay will pick it up", eventId, e));
  }
}
