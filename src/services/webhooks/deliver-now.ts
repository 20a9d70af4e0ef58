import { enqueueMessages, onShard, type RequestContext } from "../../lib/context";
import { shardOf } from "../../lib/shards";
import { attemptAll, type DeliverOptions } from "./deliver";
import { fanOutClaiming } from "./fan-out";

/**
 * First attempts one invocation sends itself (subrequests per invocation are bounded); deliveries past
 * it go on the queue as delivery messages.
 */
export const IMMEDIATE_DELIVERIES = 300;

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
  // the invocation's publishes claim one after the other (their fan-outs only, not their attempts): one that
  // started while another's claim was out would see the cap taken and queue what the other hands back
  const release = await claimTurn(ctx);
  let fanned: Awaited<ReturnType<typeof fanOutAll>>;
  try {
    fanned = await fanOutAll(ctx, eventIds, now, claimMax);
  } finally {
    release();
  }
  const { fannedOut, queued } = fanned;
  let sent = 0;
  // one shard after the other: the attempt lanes (deliver.ts ATTEMPT_LANES) are the invocation's
  for (const { shardCtx, claimed } of fannedOut) {
    try {
      if (claimed.length > 0) {
        const { results, released } = await attemptAll(shardCtx, { rows: claimed, ...opts, now });
        sent += results.length;
        queued.push(...released);
      }
    } catch (err) {
      // Claimed, maybe sent, not recorded: the sweep resends once the claim lapses (at-least-once).
      console.error("webhook immediate attempts failed; the sweep resends after the claim", eventIds.length, err);
    }
  }
  await enqueueDeliveries(ctx, queued);
  return { sent, queued: queued.length };
}

/**
 * The fan-out of deliverNow, shard by shard, under the invocation's cap (takeImmediate): what each shard
 * claimed, and the ids to queue. Throws if no shard's fan-out committed.
 */
async function fanOutAll(ctx: RequestContext, eventIds: readonly string[], now: Date, claimMax: number) {
  const allowed = takeImmediate(ctx, claimMax);
  // each event is on the shard its id names (docs/decisions/shards.md 2): one fan-out per shard, in
  // the order the shards first appear, the claim cap carried across them
  const byShard = new Map<number, string[]>();
  for (const id of eventIds) byShard.set(shardOf(id), [...(byShard.get(shardOf(id)) ?? []), id]);
  const fannedOut: { shardCtx: RequestContext; claimed: Awaited<ReturnType<typeof fanOutClaiming>>["claimed"] }[] = [];
  const queued: string[] = [];
  let left = allowed;
  const failed: { ids: string[]; err: unknown }[] = [];
  for (const [shard, ids] of byShard) {
    const shardCtx = onShard(ctx, shard, true);
    try {
      const { claimed, unclaimed } = await fanOutClaiming(shardCtx, { eventIds: ids, now, claimMax: left });
      left -= claimed.length;
      fannedOut.push({ shardCtx, claimed });
      queued.push(...unclaimed);
    } catch (err) {
      failed.push({ ids, err });
    }
  }
  if (fannedOut.length === 0 && failed.length > 0) {
    giveBackImmediate(ctx, allowed);
    throw failed[0]!.err;
  }
  if (failed.length > 0) {
    // another shard's fan-out committed: only the failed shard's events go on the queue as event messages
    console.error("webhook immediate fan-out failed on a shard; queueing its events", failed[0]!.err);
    await enqueueMessages(ctx, failed.flatMap((f) => f.ids.map((id) => ({ kind: "event" as const, event_id: id }))), "the relay will pick them up");
  }
  giveBackImmediate(ctx, left);
  return { fannedOut, queued };
}

/** Each invocation's turn at claiming: the promise the next publish waits for. */
const claimTurns = new WeakMap<RequestContext, Promise<void>>();

async function claimTurn(ctx: RequestContext): Promise<() => void> {
  const previous = claimTurns.get(ctx) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  claimTurns.set(ctx, previous.then(() => mine));
  await previous;
  return release;
}

/** The fast path for deliveries not sent at once; if it fails they are already due, and the sweep sends them. */
export const enqueueDeliveries = (ctx: RequestContext, deliveryIds: readonly string[]): Promise<void> =>
  enqueueMessages(ctx, deliveryIds.map((id) => ({ kind: "delivery", delivery_id: id })), "the sweep will send them");
