import type { RequestContext } from "../lib/context";
import { forEachConcurrently } from "../lib/concurrency";
import { deliverWebhook, type DeliverOptions } from "../services/webhooks/deliver";

const BATCH = 100;
const CONCURRENCY = 20;
/** Wall-clock budget of one run: a backlog drains over several runs instead of overlapping them. */
const RUN_BUDGET_MS = 45_000;

/**
 * The webhook retry sweep (every minute): sends every pending delivery whose `next_attempt_at` has
 * passed, oldest first, in batches until none is due or the run's budget is spent. It is how retries
 * happen, and the safety net of the queue: a delivery whose message was lost, or whose sender died
 * (its claim lapses), is due here. It claims like the queue consumer, so the two never send one
 * attempt twice, and a claimed delivery is not due again within the run.
 */
export async function sweepDeliveries(ctx: RequestContext, now = new Date(), opts: Omit<DeliverOptions, "now"> & { budgetMs?: number } = {}) {
  const env = ctx.env;
  const deadline = Date.now() + (opts.budgetMs ?? RUN_BUDGET_MS);
  let attempted = 0;
  for (;;) {
    const { results } = await env.DB.prepare(
      "SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?",
    )
      .bind(now.toISOString(), BATCH)
      .all<{ id: string }>();
    await forEachConcurrently(results, CONCURRENCY, async ({ id }) => {
      try {
        if (await deliverWebhook(ctx, { ...opts, deliveryId: id, now })) attempted += 1;
      } catch (err) {
        console.error("webhook sweep: delivery failed unexpectedly", id, err);
      }
    });
    if (results.length < BATCH || Date.now() > deadline) return { attempted };
  }
}
