import type { OutboxMessage } from "../../env";
import type { RequestContext } from "../../lib/context";
import { attemptAll, type DeliverOptions } from "./deliver";
import { fanOutClaiming } from "./fan-out";

const SEND_BATCH = 100; // Queue#sendBatch takes at most 100 messages

/**
 * Fans one committed event out (one D1 round trip) and sends the first attempt of each new delivery at
 * once, in the caller's invocation: the deliveries to live, healthy endpoints are inserted already claimed (their
 * `next_attempt_at` a lease ahead, deliver.ts CLAIM_LEASE_MS), so the queue consumer and the sweep
 * leave them alone unless this attempt dies before it is recorded; then the sweep sends them once the
 * lease lapses. Deliveries it does not send (a paused or failing endpoint, beyond `claimMax`) go on
 * the queue as usual. Throws only if the fan-out itself failed (nothing committed): the caller then
 * hands the event to the queue.
 */
export async function deliverNow(ctx: RequestContext, input: { eventId: string; claimMax?: number } & DeliverOptions): Promise<{ sent: number; queued: number }> {
  const { eventId, claimMax, ...opts } = input;
  const now = opts.now ?? new Date();
  const { claimed, unclaimed } = await fanOutClaiming(ctx, { eventId, now, claimMax });
  let sent = 0;
  try {
    if (claimed.length > 0) sent = (await attemptAll(ctx, { rows: claimed, ...opts, now })).length;
  } catch (err) {
    // Claimed, maybe sent, not recorded: the sweep resends once the claim lapses (at-least-once).
    console.error("webhook immediate attempt failed; the sweep resends after the claim", eventId, err);
  }
  await enqueueDeliveries(ctx, unclaimed);
  return { sent, queued: unclaimed.length };
}

/** The fast path for deliveries not sent at once; if it fails they are already due, and the sweep sends them. */
export async function enqueueDeliveries(ctx: RequestContext, deliveryIds: string[]): Promise<void> {
  for (let i = 0; i < deliveryIds.length; i += SEND_BATCH) {
    const chunk = deliveryIds.slice(i, i + SEND_BATCH);
    try {
      await ctx.env.WEBHOOK_QUEUE.sendBatch(chunk.map((id) => ({ body: { kind: "delivery", delivery_id: id } satisfies OutboxMessage })));
    } catch (err) {
      console.warn("delivery fast path failed; the sweep will send them", chunk.length, err);
    }
  }
}
