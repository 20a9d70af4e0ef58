import type { RequestContext } from "../lib/context";
import { undispatchedEventIds } from "../services/events/repository";

const BATCH = 100;
/** Events younger than this are left to the fast path that enqueued them at commit. */
const GRACE_MS = 30_000;

/**
 * The safety net of the transactional outbox: any event not yet dispatched a while after it was
 * written is put on the webhook queue again. The queue consumer is idempotent per event, so a
 * duplicate from this relay costs nothing.
 */
export async function relayOutbox(ctx: RequestContext, now = new Date()): Promise<{ relayed: number }> {
  const cutoff = new Date(now.getTime() - GRACE_MS).toISOString();
  const ids = await undispatchedEventIds(ctx.db, { cutoff, limit: BATCH });
  if (ids.length > 0) {
    await ctx.env.WEBHOOK_QUEUE.sendBatch(ids.map((id) => ({ body: { kind: "event" as const, event_id: id } })));
  }
  return { relayed: ids.length };
}
