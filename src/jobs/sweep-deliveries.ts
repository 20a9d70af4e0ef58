import type { RequestContext } from "../lib/context";
import { forEachConcurrently } from "../lib/concurrency";
import { BACKOFF_AFTER_FAILURES, deliverWebhook, type DeliverOptions } from "../services/webhooks/deliver";

const BATCH = 100;
const CONCURRENCY = 20;
/** At most this many of one organization's deliveries in a round (alone, it still fills every sender), and of one endpoint's. */
const PER_ORG = CONCURRENCY;
const PER_ENDPOINT = 5;

/**
 * A round's due deliveries, shared across organizations: each organization's oldest first, then each
 * one's second, and so on (the order the senders start them in), at most PER_ORG per organization and
 * PER_ENDPOINT per endpoint, none for a paused endpoint, and for an endpoint failing
 * BACKOFF_AFTER_FAILURES times in a row one probe a run (`?6`: the failing endpoints already probed);
 * its other deliveries wait for a run after the probe succeeds. One organization's backlog of slow or failing receivers takes
 * its share of a round, never the round.
 */
const DUE_FAIRLY = `
  SELECT id, endpoint_id, consecutive_failures FROM (
    SELECT d.id, d.endpoint_id, d.next_attempt_at,
           ROW_NUMBER() OVER (PARTITION BY d.org_id ORDER BY d.next_attempt_at, d.id) AS org_rank,
           ROW_NUMBER() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) AS endpoint_rank,
           e.consecutive_failures
    FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
    WHERE d.status = 'pending' AND d.next_attempt_at <= ?1 AND e.paused_at IS NULL
      AND NOT (e.consecutive_failures >= ?3 AND d.endpoint_id IN (SELECT value FROM json_each(?6)))
  )
  WHERE org_rank <= ?2 AND endpoint_rank <= CASE WHEN consecutive_failures >= ?3 THEN 1 ELSE ?4 END
  ORDER BY org_rank, next_attempt_at, id
  LIMIT ?5`;
/** Wall-clock budget of one run: a backlog drains over several runs instead of overlapping them. */
const RUN_BUDGET_MS = 45_000;

/**
 * The webhook retry sweep (every minute): sends every pending delivery whose `next_attempt_at` has
 * passed, in rounds shared fairly across organizations (DUE_FAIRLY), until none is due or the run's
 * budget is spent. It is how retries
 * happen, and the safety net of the queue: a delivery whose message was lost, or whose sender died
 * (its claim lapses), is due here. It claims like the queue consumer, so the two never send one
 * attempt twice, and a claimed delivery is not due again within the run.
 */
export async function sweepDeliveries(ctx: RequestContext, now = new Date(), opts: Omit<DeliverOptions, "now"> & { budgetMs?: number } = {}) {
  const env = ctx.env;
  const deadline = Date.now() + (opts.budgetMs ?? RUN_BUDGET_MS);
  let attempted = 0;
  const probed = new Set<string>();
  for (;;) {
    const { results } = await env.DB.prepare(DUE_FAIRLY)
      .bind(now.toISOString(), PER_ORG, BACKOFF_AFTER_FAILURES, PER_ENDPOINT, BATCH, JSON.stringify([...probed]))
      .all<{ id: string; endpoint_id: string; consecutive_failures: number }>();
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
