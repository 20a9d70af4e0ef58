import type { OutboxMessage } from "../../env";
import type { RequestContext } from "../../lib/context";
import { deliverNow } from "../webhooks/deliver-now";

/**
 * The safety-net message reaches the queue consumer this long after commit. By then the immediate
 * path has normally fanned the event out, and the consumer finds it dispatched and does nothing; if
 * the invocation died first, the consumer fans it out (and the cron relay would after 30 s anyway).
 */
export const SAFETY_NET_DELAY_S = 15;

/**
 * `ctx.publish` of the request surfaces (issue 17): right after commit, in the request's `waitUntil`,
 * fan the event out and send each first attempt at once (webhooks/deliver-now.ts), so a receiver
 * hears of a change within a second instead of after two queue hops. The queue stays the safety net:
 * a delayed event message is sent first, and at once if the fan-out fails. Never throws.
 */
export async function publishEvent(ctx: RequestContext, eventId: string): Promise<void> {
  const message: OutboxMessage = { kind: "event", event_id: eventId };
  const safetyNet = ctx.env.WEBHOOK_QUEUE.send(message, { delaySeconds: SAFETY_NET_DELAY_S }).catch((err: unknown) => {
    console.warn("outbox safety-net message failed; the relay will pick it up if needed", eventId, err);
  });
  try {
    await deliverNow(ctx, { eventId });
  } catch (err) {
    console.warn("immediate webhook fan-out failed; handing the event to the queue", eventId, err);
    await ctx.env.WEBHOOK_QUEUE.send(message).catch((e: unknown) => console.warn("outbox fast path failed; the relay will pick it up", eventId, e));
  }
  await safetyNet;
}
