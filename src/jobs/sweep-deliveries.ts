import type { RequestContext } from "../lib/context";
import { forEachConcurrently } from "../lib/concurrency";
import { BACKOFF_AFTER_FAILURES, deliverWebhook, type DeliverOptions } from "../services/webhooks/deliver";
import { dueDeliveriesFairly } from "../services/webhooks/repository";

const BATCH = 100;
const CONCURRENCY = 20;
/** At most this many of one organization's deliveries in a round (alone, it still fills every sender), and of one endpoint's. */
const PER_ORG = CONCURRENCY;
const PER_ENDPOINT = 5;

/** Wall-clock budget of one run: a backlog drains over several runs instead of overlapping them. */
const RUN_BUDGET_MS = 45_000;

/**
 * The webhook retry sweep (every minute): sends every pending delivery whose `next_attempt_at` has
 * passed, in rounds shared fairly across organizations (webhooks/repository.ts DUE_FAIRLY: each organization's
 * oldest first, at most PER_ORG per organization and PER_ENDPOINT per endpoint, one probe a run for an endpoint
 * failing BACKOFF_AFTER_FAILURES times in a row, none for a paused one), until none is due or the run's
 * budget is spent. It is how retries
 * happen, and the safety net of the queue: a delivery whose message was lost, or whose sender died
 * (its claim lapses), is due here. It claims like the queue consumer, so the two never send one
 * attempt twice, and a claimed delivery is not due again within the run. Per shard: `ctx.db` is the
 * shard swept (the cron runs it once per shard); the endpoints' health is read from global.
 */
export async function sweepDeliveries(ctx: RequestContext, now = new Date(), opts: Omit<DeliverOptions, "now"> & { budgetMs?: number } = {}) {
  const deadline = Date.now() + (opts.budgetMs ?? RUN_BUDGET_MS);
  let attempted = 0;
  const probed = new Set<string>();
  for (;;) {
    const results = await dueDeliveriesFairly(ctx.db, ctx.global, {
      now: now.toISOString(),
      perOrg: PER_ORG,
      backoffAfter: BACKOFF_AFTER_FAILURES,
      perEndpoint: PER_ENDPOINT,
      limit: BATCH,
      probed: [...probed],
    });
    for (const r of results) if (r.consecutive_failures >= BACKOFF_AFTER_FAILURES) probed.add(r.endpoint_id);
    await forEachConcurrently(results, CONCURRENCY, async ({ id }) => {
      try {
        if (await deliverWebhook(ctx, { ...opts, deliveryId: id, now })) attempted += 1;
      } catch (err) {
        console.error("webhook sweep: delivery failed unexpectedly", id, err);
      }
    });
    // a round below BATCH may still leave due work (the caps): the next round takes it, until none is due
    if (results.length === 0 || Date.now() > deadline) return { attempted };
  }
}
