import type { RequestContext } from "../lib/context";
import { undispatchedEvents } from "../services/events/repository";
import { deliverNow } from "../services/webhooks/deliver-now";

const BATCH = 100;
/** Events younger than this are left to the fast path that enqueued them at commit. */
const GRACE_MS = 30_000;
/**
 * Events still undispatched this long after they were written have been put on the queue by several
 * relay runs already and not consumed (a stalled or failing consumer): the relay fans them out itself.
 */
export const RELAY_FAN_OUT_AFTER_MS = 5 * 60_000;

/**
 * The safety net of the transactional outbox: any event not yet dispatched a while after it was
 * written is put on the webhook queue again. The queue consumer is idempotent per event, so a
 * duplicate from this relay costs nothing. An event the queue has not dispatched within
 * RELAY_FAN_OUT_AFTER_MS is fanned out here, in the cron's invocation, without sending any attempt
 * (its deliveries are due at once: queued as delivery messages, and sent by the delivery sweep if the
 * queue does not), so no event waits on a consumer that is not running (docs/decisions/webhook-immediate-delivery.md).
 */
export async function relayOutbox(ctx: RequestContext, now = new Date()): Promise<{ relayed: number; fannedOut: number }> {
  const cutoff = new Date(now.getTime() - GRACE_MS).toISOString();
  const staleBefore = new Date(now.getTime() - RELAY_FAN_OUT_AFTER_MS).toISOString();
  const events = await undispatchedEvents(ctx.db, { cutoff, limit: BATCH });
  const stale = events.filter((e) => e.created_at <= staleBefore).map((e) => e.id);
  const fresh = events.filter((e) => e.created_at > staleBefore).map((e) => e.id);
  if (stale.length > 0) await deliverNow(ctx, { eventIds: stale, claimMax: 0, now });
  if (fresh.length > 0) {
    await ctx.env.WEBHOOK_QUEUE.sendBatch(fresh.map((id) => ({ body: { kind: "event" as const, event_id: id } })));
  }
  return { relayed: fresh.length, fannedOut: stale.length };
}
