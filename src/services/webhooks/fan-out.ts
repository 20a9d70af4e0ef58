import type { RequestContext } from "../../lib/context";
import { newId } from "../../lib/ids";
import { BACKOFF_AFTER_FAILURES, claimUntil, type LoadedDelivery } from "./deliver";
import { MAX_ATTEMPTS } from "./retry-schedule";
import { subscribes } from "./selectors";

type EventRead = { id: string; org_id: string; type: string; envelope_id: string | null; data: string; created_at: string; dispatched_at: string | null };
type EndpointRead = Pick<
  LoadedDelivery,
  "url" | "is_active" | "deleted_at" | "secret" | "previous_secret" | "grace_expires_at" | "consecutive_failures" | "failing_since" | "paused_at"
> & { id: string; events: string };

/** The FROM clause of an organization's live webhook endpoints; `orgId` is an SQL expression. */
export const liveEndpointsOf = (orgId: string) => `FROM webhook_endpoints WHERE org_id = ${orgId} AND is_active = 1 AND deleted_at IS NULL`;

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
 * fanOutEvent that also claims, in the same batch, the new deliveries to live endpoints that are
 * neither paused nor failing (deliver.ts BACKOFF_AFTER_FAILURES), at most `claimMax`: those rows are
 * inserted with `next_attempt_at` a claim lease ahead, and only if the endpoint is still live at
 * commit, and come back loaded (endpoint and event fields), ready for an attempt without another
 * read. The others are due at once, as with fanOutEvent. Two round trips in all; one when the
 * organization has no live endpoint.
 */
export async function fanOutClaiming(
  ctx: RequestContext,
  input: { eventId: string; now?: Date; claimMax?: number },
): Promise<{ claimed: LoadedDelivery[]; unclaimed: string[] }> {
  const { db } = ctx;
  const { eventId, now = new Date(), claimMax = Number.POSITIVE_INFINITY } = input;
  const at = now.toISOString();
  // One round trip for the event and its organization's live endpoints; an organization with none
  // (most events) is dispatched in the same transaction, so that is the whole fan-out.
  const liveEndpoints = liveEndpointsOf("(SELECT org_id FROM events WHERE id = ?)");
  const [eventResult, endpointResult] = await db.batch([
    db.prepare("SELECT id, org_id, type, envelope_id, data, created_at, dispatched_at FROM events WHERE id = ?").bind(eventId),
    db
      .prepare(`SELECT id, events, url, is_active, deleted_at, secret, previous_secret, grace_expires_at, consecutive_failures, failing_since, paused_at ${liveEndpoints}`)
      .bind(eventId),
    db.prepare(`UPDATE events SET dispatched_at = ? WHERE id = ? AND dispatched_at IS NULL AND NOT EXISTS (SELECT 1 ${liveEndpoints})`).bind(at, eventId, eventId),
  ]);
  const event = eventResult?.results[0] as EventRead | undefined;
  if (!event || event.dispatched_at) return { claimed: [], unclaimed: [] };
  const endpoints = (endpointResult?.results ?? []) as EndpointRead[];
  if (endpoints.length === 0) return { claimed: [], unclaimed: [] };
  const lease = claimUntil(now);
  let claims = 0;
  const deliveries = endpoints
    .filter((e) => subscribes(JSON.parse(e.events) as string[], event.type))
    .map((e) => {
      const id = newId("webhookDelivery");
      const claim = claims < claimMax && !e.paused_at && (e.consecutive_failures ?? 0) < BACKOFF_AFTER_FAILURES;
      if (claim) claims += 1;
      const statement = claim
        ? db
            .prepare(
              `INSERT OR IGNORE INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
               SELECT ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?
               WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ? AND is_active = 1 AND deleted_at IS NULL AND paused_at IS NULL)`,
            )
            .bind(id, event.org_id, e.id, event.id, event.type, MAX_ATTEMPTS, lease, at, at, e.id)
        : db
            .prepare(
              `INSERT OR IGNORE INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)`,
            )
            .bind(id, event.org_id, e.id, event.id, event.type, MAX_ATTEMPTS, at, at, at);
      return { id, claim, endpoint: e, statement };
    });
  const results = await db.batch([
    ...deliveries.map((d) => d.statement),
    db.prepare("UPDATE events SET dispatched_at = ? WHERE id = ? AND dispatched_at IS NULL").bind(at, event.id),
  ]);
  const created = deliveries.filter((_, i) => results[i]?.meta.changes === 1);
  return {
    claimed: created
      .filter((d) => d.claim)
      .map(({ id, endpoint: e }) => ({
        id,
        org_id: event.org_id,
        endpoint_id: e.id,
        event_id: event.id,
        event_type: event.type,
        status: "pending",
        attempts: 0,
        max_attempts: MAX_ATTEMPTS,
        next_attempt_at: lease,
        last_attempt_at: null,
        response_status: null,
        response_body: null,
        duration_ms: null,
        last_error: null,
        redelivery_of: null,
        created_at: at,
        updated_at: at,
        url: e.url,
        is_active: e.is_active,
        deleted_at: e.deleted_at,
        secret: e.secret,
        previous_secret: e.previous_secret,
        grace_expires_at: e.grace_expires_at,
        consecutive_failures: e.consecutive_failures,
        failing_since: e.failing_since,
        paused_at: e.paused_at,
        envelope_id: event.envelope_id,
        event_data: event.data,
        event_created_at: event.created_at,
      })),
    unclaimed: created.filter((d) => !d.claim).map((d) => d.id),
  };
}
