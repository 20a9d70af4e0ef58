import { enqueueEvents, type RequestContext } from "../../lib/context";
import { deliverNow } from "./deliver-now";

/**
 * `ctx.publish` of the request surfaces and the bulk batch (issue 17): right after commit, in the
 * invocation's `waitUntil`, fan the events out (those of one commit together) and send each first
 * attempt at once (deliver-now.ts), so a receiver hears of a change within a second instead
 * of after two queue hops. If the fan-out fails, the events go on the queue at once. If the invocation dies before the fan-out commits, the event stays
 * undispatched and the every-minute relay (jobs/relay-outbox.ts) puts it on the queue after 30 s; if
 * it dies after, the deliveries are claimed and the sweep sends them once the claim lapses. So no
 * message per event is needed as a net: the outbox row is the net. Never throws.
 */
export async function publishEvents(ctx: RequestContext, eventIds: readonly string[]): Promise<void> {
  try {
    await deliverNow(ctx, { eventIds });
  } catch (err) {
    console.warn("immediate webhook fan-out failed; handing the events to the queue", eventIds.length, err);
    await enqueueEvents(ctx, eventIds);
  }
}
