import { enqueueMessages, type RequestContext } from "../../lib/context";
import { attemptAll, type DeliverOptions } from "./deliver";
import { fanOutClaiming } from "./fan-out";

/**
 * First attempts one invocation sends itself (subrequests per invocation are bounded); deliveries past
 * it go on the queue as delivery messages.
 */
export const IMMEDIATE_DELIVERIES = 150;

/**
 * Fans committed events out (one D1 round trip for all of them) and sends the first attempt of each new
 * delivery at once, in the caller's invocation: the deliveries to live, healthy endpoints are inserted
 * already claimed (their `next_attempt_at` a lease ahead, deliver.ts CLAIM_LEASE_MS), up to `claimMax`
 * in all, so the queue consumer and the sweep leave them alone unless this attempt dies before it is
 * recorded; then the sweep sends them once the lease lapses. The attempts go out together and are
 * recorded in one more round trip. Deliveries it does not send (a paused or failing endpoint, beyond
 * `claimMax`) go on the queue as usual. Throws only if the fan-out itself failed (nothing committed):
 * the caller then hands the events to the queue.
 */
export async function deliverNow(
  ctx: RequestContext,
  input: { eventIds: readonly string[]; claimMax?: number } & DeliverOptions,
): Promise<{ sent: number; queued: number }> {
  const { eventIds, claimMax = IMMEDIATE_DELIVERIES, ...opts } = input;
  const now = opts.now ?? new Date();
  const { claimed, unclaimed } = await fanOutClaiming(ctx, { eventIds, now, claimMax });
  let sent = 0;
  try {
    if (claimed.length > 0) sent = (await attemptAll(ctx, { rows: claimed, ...opts, now })).length;
  } catch (err) {
    // Claimed, maybe sent, not recorded: the sweep resends once the claim lapses (at-least-once).
    console.error("webhook immediate attempts failed; the sweep resends after the claim", eventIds.length, err);
  }
  await enqueueDeliveries(ctx, unclaimed);
  return { sent, queued: unclaimed.length };
}

/** The fast path for deliveries not sent at once; if it fails they are already due, and the sweep sends them. */
export const enqueueDeliveries = (ctx: RequestContext, deliveryIds: readonly string[]): Promise<void> =>
  enqueueMessages(ctx, deliveryIds.map((id) => ({ kind: "delivery", delivery_id: id })), "the sweep will send them");
