import { enqueueMessages, type RequestContext } from "../../lib/context";
import { attemptAll, type DeliverOptions } from "./deliver";
import { fanOutClaiming } from "./fan-out";

/**
 * First attempts one invocation sends itself (subrequests per invocation are bounded); deliveries past
 * it go on the queue as delivery messages.
 */
export const IMMEDIATE_DELIVERIES = 150;

/**
 * First attempts each invocation has left, kept by its context: createContext builds one per request,
 * queue batch or bulk chunk, and its `publish` hands that same object to every call. The cap is the
 * invocation's, not each publish's: a bulk chunk publishes after it creates its envelopes and again
 * after it sends them, and with 25 endpoints each publish could claim the whole cap (300 attempts, and
 * their statements, in one invocation). Publishes run concurrently in `waitUntil`, so each takes its
 * share before its fan-out and hands back what its claim did not use.
 */
const immediateLeft = new WeakMap<RequestContext, number>();

function takeImmediate(ctx: RequestContext, wanted: number): number {
  const left = immediateLeft.get(ctx) ?? IMMEDIATE_DELIVERIES;
  const taken = Math.max(0, Math.min(wanted, left));
  immediateLeft.set(ctx, left - taken);
  return taken;
}

const giveBackImmediate = (ctx: RequestContext, unused: number) => immediateLeft.set(ctx, (immediateLeft.get(ctx) ?? IMMEDIATE_DELIVERIES) + unused);

/**
 * Fans committed events out (one D1 round trip for all of them) and sends the first attempt of each new
 * delivery at once, in the caller's invocation: the deliveries to live, healthy endpoints are inserted
 * already claimed (their `next_attempt_at` a lease ahead, deliver.ts CLAIM_LEASE_MS), up to `claimMax`
 * in all and to what is left of the invocation's IMMEDIATE_DELIVERIES, so the queue consumer and the
 * sweep leave them alone unless this attempt dies before it is recorded; then the sweep sends them
 * once the lease lapses. The attempts go out a few at a time
 * (deliver.ts ATTEMPT_LANES) and are recorded in one more round trip; those a slow receiver kept from
 * starting in time are released and queued. Deliveries it does not send (a paused or failing endpoint, beyond
 * `claimMax`) go on the queue as usual. Throws only if the fan-out itself failed (nothing committed):
 * the caller then hands the events to the queue.
 */
export async function deliverNow(
  ctx: RequestContext,
  input: { eventIds: readonly string[]; claimMax?: number } & DeliverOptions,
): Promise<{ sent: number; queued: number }> {
  const { eventIds, claimMax = IMMEDIATE_DELIVERIES, ...opts } = input;
  const now = opts.now ?? new Date();
  const allowed = takeImmediate(ctx, claimMax);
  let fannedOut: Awaited<ReturnType<typeof fanOutClaiming>>;
  try {
    fannedOut = await fanOutClaiming(ctx, { eventIds, now, claimMax: allowed });
  } catch (err) {
    giveBackImmediate(ctx, allowed);
    throw err;
  }
  const { claimed, unclaimed } = fannedOut;
  giveBackImmediate(ctx, allowed - claimed.length);
  let sent = 0;
  const queued = [...unclaimed];
  try {
    if (claimed.length > 0) {
      const { results, released } = await attemptAll(ctx, { rows: claimed, ...opts, now });
      sent = results.length;
      queued.push(...released);
    }
  } catch (err) {
    // Claimed, maybe sent, not recorded: the sweep resends once the claim lapses (at-least-once).
    console.error("webhook immediate attempts failed; the sweep resends after the claim", eventIds.length, err);
  }
  await enqueueDeliveries(ctx, queued);
  return { sent, queued: queued.length };
}

/** The fast path for deliveries not sent at once; if it fails they are already due, and the sweep sends them. */
export const enqueueDeliveries = (ctx: RequestContext, deliveryIds: readonly string[]): Promise<void> =>
  enqueueMessages(ctx, deliveryIds.map((id) => ({ kind: "delivery", delivery_id: id })), "the sweep will send them");
