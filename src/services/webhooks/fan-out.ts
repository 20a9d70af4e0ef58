import type { RequestContext } from "../../lib/context";
import { newId } from "../../lib/ids";
import { BACKOFF_AFTER_FAILURES, claimUntil, SELECT_LOADED_DELIVERIES, type LoadedDelivery } from "./deliver";
import { MAX_ATTEMPTS } from "./retry-schedule";
import { WEBHOOK_ENDPOINT_LIMIT } from "./schema";
import { subscribesSql } from "./selectors";

/** The FROM clause of an organization's live webhook endpoints, as `w`; `orgId` is an SQL expression. */
export const liveEndpointsOf = (orgId: string) => `FROM webhook_endpoints w WHERE w.org_id = ${orgId} AND w.is_active = 1 AND w.deleted_at IS NULL`;

/**
 * Turns one outbox event into one pending delivery per active endpoint of the event's organization
 * whose selectors match, and marks the event dispatched in the same batch: either both commit or
 * neither does, so a consumer that dies here leaves the event for a queue retry or the relay. The
 * unique (endpoint, event) index makes a second run (a duplicate message, a relay) a no-op.
 * Returns the ids of the deliveries this run created, for the fast path; every delivery is due at
 * once, so the cron sweep sends any that never reach the queue.
 */
export async function fanOutEvent(ctx: RequestContext, input: { eventId: string; now?: Date }): Promise<string[]> {
  const { claimed, unclaimed } = await fanOutClaiming(ctx, { ...input, claimMax: 0 });
  return [...claimed.map((d) => d.id), ...unclaimed];
}

/**
 * fanOutEvent that also claims, in the same transaction, the new deliveries to live endpoints that are
 * neither paused nor failing (deliver.ts BACKOFF_AFTER_FAILURES), at most `claimMax`: those rows are
 * inserted with `next_attempt_at` a claim lease ahead, and come back loaded (endpoint and event fields),
 * ready for an attempt. The others are due at once, as with fanOutEvent. One round trip: the endpoints
 * are matched (subscriptions, liveness, health) in SQL inside the insert, which only runs while the
 * event is undispatched, and the dispatch and the read of what was inserted follow in the same batch.
 */
export async function fanOutClaiming(
  ctx: RequestContext,
  input: { eventId: string; now?: Date; claimMax?: number },
): Promise<{ claimed: LoadedDelivery[]; unclaimed: string[] }> {
  const { db } = ctx;
  const { eventId, now = new Date(), claimMax = WEBHOOK_ENDPOINT_LIMIT } = input;
  const at = now.toISOString();
  const lease = claimUntil(now);
  // One id per possible endpoint (an organization has at most WEBHOOK_ENDPOINT_LIMIT, a trigger holds it), handed out in
  // endpoint order: the order they were registered in (rowid), which is also the order claims go by and deliveries come back in.
  const idList = Array.from({ length: WEBHOOK_ENDPOINT_LIMIT }, () => newId("webhookDelivery"));
  const ids = JSON.stringify(idList);
  const healthy = `(w.paused_at IS NULL AND COALESCE(w.consecutive_failures, 0) < ${BACKOFF_AFTER_FAILURES})`;
  const [, , loaded] = await db.batch([
    db
      .prepare(
        `INSERT OR IGNORE INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
         SELECT json_extract(?1, '$[' || (m.n - 1) || ']'), ev.org_id, m.id, ev.id, ev.type, 'pending', 0, ?2, CASE WHEN m.claim THEN ?3 ELSE ?4 END, ?4, ?4
         FROM events ev
         JOIN (
           SELECT w.id, row_number() OVER (ORDER BY w.rowid) AS n,
                  ${healthy} AND SUM(${healthy}) OVER (ORDER BY w.rowid ROWS UNBOUNDED PRECEDING) <= ?6 AS claim
           ${liveEndpointsOf("(SELECT org_id FROM events WHERE id = ?5)")}
             AND ${subscribesSql("w.events", "(SELECT type FROM events WHERE id = ?5)")}
         ) m
         WHERE ev.id = ?5 AND ev.dispatched_at IS NULL`,
      )
      .bind(ids, MAX_ATTEMPTS, lease, at, eventId, claimMax),
    db.prepare("UPDATE events SET dispatched_at = ? WHERE id = ? AND dispatched_at IS NULL").bind(at, eventId),
    // The event's first deliveries, through the (endpoint, event) index (D1 bills every id probed by an id
    // list as a row read); of those, this run's are the ones under its ids.
    db
      .prepare(
        `${SELECT_LOADED_DELIVERIES}
         WHERE d.event_id = ?1 AND d.redelivery_of IS NULL
           AND d.endpoint_id IN (SELECT w.id FROM webhook_endpoints w WHERE w.org_id = (SELECT org_id FROM events WHERE id = ?1))
         ORDER BY e.rowid`,
      )
      .bind(eventId),
  ]);
  const mine = new Set(idList);
  const created = ((loaded?.results ?? []) as LoadedDelivery[]).filter((d) => mine.has(d.id));
  return {
    claimed: created.filter((d) => d.next_attempt_at === lease),
    unclaimed: created.filter((d) => d.next_attempt_at !== lease).map((d) => d.id),
  };
}
