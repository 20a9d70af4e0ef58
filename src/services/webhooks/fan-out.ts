import type { RequestContext } from "../../lib/context";
import { newShardId } from "../../lib/shards";
import { BACKOFF_AFTER_FAILURES, claimUntil } from "./deliver";
import { endpointAnchorsInsert, liveEndpointsOfOrgs, loadedWith, SELECT_DELIVERIES_WITH_EVENT, type DeliveryWithEvent, type LoadedDelivery } from "./repository";
import { MAX_ATTEMPTS } from "./retry-schedule";
import { WEBHOOK_ENDPOINT_LIMIT } from "./schema";
import { selectorMatches, subscribesSql } from "./selectors";


/**
 * Turns one outbox event into one pending delivery per active endpoint of the event's organization
 * whose selectors match, and marks the event dispatched in the same batch: either both commit or
 * neither does, so a consumer that dies here leaves the event for a queue retry or the relay. The
 * unique (endpoint, event) index makes a second run (a duplicate message, a relay) a no-op.
 * Returns the ids of the deliveries this run created, for the fast path; every delivery is due at
 * once, so the cron sweep sends any that never reach the queue.
 */
export async function fanOutEvent(ctx: RequestContext, input: { eventId: string; now?: Date }): Promise<string[]> {
  const { claimed, unclaimed } = await fanOutClaiming(ctx, { eventIds: [input.eventId], now: input.now, claimMax: 0 });
  return [...claimed.map((d) => d.id), ...unclaimed];
}

/** Events fanned out in one batch at most: their ids list (25 per event) stays a bound parameter of ~40 KB. */
export const FAN_OUT_EVENTS = 50;

/**
 * fanOutEvent for several events at once (the events one request, queue batch or bulk group committed)
 * that also claims, in the same transaction, the new deliveries to live endpoints that are neither
 * paused nor failing (deliver.ts BACKOFF_AFTER_FAILURES), at most `claimMax` in all, the first events'
 * first: those rows are inserted with `next_attempt_at` a claim lease ahead, and come back loaded
 * (endpoint and event fields), ready for an attempt. The others are due at once, as with fanOutEvent.
 * Three round trips whatever the number of events: the endpoints are matched (subscriptions, liveness,
 * health) in SQL inside the one insert, which only takes events still undispatched, and the dispatch
 * and the read of what was inserted follow in the same batch. `ctx.db` is the events' shard; the
 * events' undispatched rows and their organizations' endpoints (global) are read first. Deliveries come back in the order of
 * `eventIds`, each event's in the order its endpoints were registered (rowid).
 */
export async function fanOutClaiming(
  ctx: RequestContext,
  input: { eventIds: readonly string[]; now?: Date; claimMax?: number },
): Promise<{ claimed: LoadedDelivery[]; unclaimed: string[] }> {
  const { db } = ctx;
  const { now = new Date(), claimMax = WEBHOOK_ENDPOINT_LIMIT } = input;
  const eventIds = [...new Set(input.eventIds)];
  if (eventIds.length === 0) return { claimed: [], unclaimed: [] };
  if (eventIds.length > FAN_OUT_EVENTS) {
    // one batch per FAN_OUT_EVENTS events, in order, the claim cap carried across them
    const first = await fanOutClaiming(ctx, { eventIds: eventIds.slice(0, FAN_OUT_EVENTS), now, claimMax });
    const rest = await fanOutClaiming(ctx, { eventIds: eventIds.slice(FAN_OUT_EVENTS), now, claimMax: claimMax - first.claimed.length });
    return { claimed: [...first.claimed, ...rest.claimed], unclaimed: [...first.unclaimed, ...rest.unclaimed] };
  }
  const at = now.toISOString();
  const lease = claimUntil(now);
  const events = JSON.stringify(eventIds);
  // Events are shard rows, endpoints global (docs/decisions/shards.md 3): the events still undispatched
  // are read first (their organizations and types), then those organizations' live endpoints from global,
  // passed to the shard's INSERT as a JSON list in place of the table. `+dispatched_at`: the events are
  // found by id; the undispatched index would walk every event in flight (relay-outbox.ts's index)
  const { results: pending } = await db
    .prepare("SELECT id, org_id, type FROM events WHERE id IN (SELECT value FROM json_each(?)) AND +dispatched_at IS NULL")
    .bind(events)
    .all<{ id: string; org_id: string; type: string }>();
  if (pending.length === 0) return { claimed: [], unclaimed: [] };
  const live = await liveEndpointsOfOrgs(ctx.global, pending.map((e) => e.org_id));
  // only endpoints some event goes to: they are the ones the shard needs an anchor row of
  const targets = live.filter((w) => {
    const selectors = JSON.parse(w.events) as string[];
    return pending.some((e) => e.org_id === w.org_id && selectors.some((sel) => selectorMatches(sel, e.type)));
  });
  const dispatch = db.prepare("UPDATE events SET dispatched_at = ?1 WHERE id IN (SELECT value FROM json_each(?2)) AND +dispatched_at IS NULL").bind(at, events);
  if (targets.length === 0) {
    await db.batch([dispatch]);
    return { claimed: [], unclaimed: [] };
  }
  // One id per possible (event, endpoint) pair (an organization has at most WEBHOOK_ENDPOINT_LIMIT endpoints, a
  // trigger holds it): event k's n-th endpoint, in registration order (global rowid, the list's order), takes id k * LIMIT + n - 1.
  const idList = Array.from({ length: eventIds.length * WEBHOOK_ENDPOINT_LIMIT }, () => newShardId("webhookDelivery", ctx.shardId));
  const endpoints = JSON.stringify(
    targets.map((w, rank) => ({ id: w.id, org_id: w.org_id, events: w.events, rank, failures: w.consecutive_failures ?? 0, paused: w.paused_at ? 1 : 0 })),
  );
  const healthy = `(w.paused = 0 AND w.failures < ${BACKOFF_AFTER_FAILURES})`;
  // SQL exception: this batch stays here, outside the repositories. Its statements span events and
  // webhook_deliveries (the endpoints are the JSON list `w` read from global above, their anchors first)
  // and are one design: the INSERT matches subscriptions (selectors.ts subscribesSql), health and the
  // claim cap in SQL over the id list built above, the UPDATE dispatches exactly the events that INSERT
  // read, and the SELECT reads back what was inserted by the ids above. Split across repositories, each
  // would lose the reasons beside it; test/services/webhooks/selectors-sql.spec.ts holds the matching to
  // the JavaScript matcher.
  const batch = await db.batch([
    endpointAnchorsInsert(db, targets, at),
    db
      .prepare(
        `INSERT OR IGNORE INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
         SELECT json_extract(?1, '$[' || (m.k * ${WEBHOOK_ENDPOINT_LIMIT} + m.n - 1) || ']'), m.org_id, m.endpoint_id, m.event_id, m.type, 'pending', 0, ?2,
                CASE WHEN m.claim THEN ?3 ELSE ?4 END, ?4, ?4
         FROM (
           SELECT j.key AS k, ev.id AS event_id, ev.org_id, ev.type, w.id AS endpoint_id,
                  row_number() OVER (PARTITION BY j.key ORDER BY w.rank) AS n,
                  ${healthy} AND SUM(${healthy}) OVER (ORDER BY j.key, w.rank ROWS UNBOUNDED PRECEDING) <= ?6 AS claim
           FROM json_each(?5) j
           JOIN events ev ON ev.id = j.value AND +ev.dispatched_at IS NULL
           JOIN (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.org_id') AS org_id, json_extract(value, '$.events') AS events,
                        json_extract(value, '$.rank') AS rank, json_extract(value, '$.failures') AS failures, json_extract(value, '$.paused') AS paused
                 FROM json_each(?7)) w ON w.org_id = ev.org_id
             AND ${subscribesSql("w.events", "ev.type")}
         ) m`,
      )
      .bind(JSON.stringify(idList), MAX_ATTEMPTS, lease, at, events, claimMax, endpoints),
    dispatch,
    // The events' first deliveries, through the (endpoint, event) index (D1 bills every id probed by an id
    // list as a row read); of those, this run's are the ones under its ids.
    db
      .prepare(
        `${SELECT_DELIVERIES_WITH_EVENT}
         WHERE d.event_id IN (SELECT value FROM json_each(?1)) AND d.redelivery_of IS NULL
           AND d.endpoint_id IN (SELECT json_extract(value, '$.id') FROM json_each(?2))`,
      )
      .bind(events, endpoints),
  ]);
  const loaded = batch[batch.length - 1];
  const byId = new Map(targets.map((w) => [w.id, w]));
  const rank = new Map(targets.map((w, i) => [w.id, i]));
  const order = new Map(idList.map((id, i) => [id, Math.floor(i / WEBHOOK_ENDPOINT_LIMIT)]));
  const created = ((loaded?.results ?? []) as DeliveryWithEvent[])
    .filter((d) => order.has(d.id))
    .sort((a, b) => order.get(a.id)! - order.get(b.id)! || rank.get(a.endpoint_id)! - rank.get(b.endpoint_id)!)
    .flatMap((d) => {
      const row = loadedWith(d, byId.get(d.endpoint_id));
      return row ? [row] : [];
    });
  return {
    claimed: created.filter((d) => d.next_attempt_at === lease),
    unclaimed: created.filter((d) => d.next_attempt_at !== lease).map((d) => d.id),
  };
}
