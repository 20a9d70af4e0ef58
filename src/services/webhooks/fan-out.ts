import type { RequestContext } from "../../lib/context";
import { newId } from "../../lib/ids";
import { MAX_ATTEMPTS } from "./retry-schedule";
import { subscribes } from "./selectors";

/**
 * Turns one outbox event into one pending delivery per active endpoint of the event's organization
 * whose selectors match, and marks the event dispatched in the same batch: either both commit or
 * neither does, so a consumer that dies here leaves the event for a queue retry or the relay. The
 * unique (endpoint, event) index makes a second run (a duplicate message, a relay) a no-op.
 * Returns the ids of the deliveries this run created, for the fast path; every delivery is due at
 * once, so the cron sweep sends any that never reach the queue.
 */
export async function fanOutEvent(ctx: RequestContext, input: { eventId: string; now?: Date }): Promise<string[]> {
  const { db } = ctx;
  const { eventId, now = new Date() } = input;
  // One round trip for the event and its organization's live endpoints.
  const [eventResult, endpointResult] = await db.batch([
    db.prepare("SELECT id, org_id, type, dispatched_at FROM events WHERE id = ?").bind(eventId),
    db
      .prepare("SELECT id, events FROM webhook_endpoints WHERE org_id = (SELECT org_id FROM events WHERE id = ?) AND is_active = 1 AND deleted_at IS NULL")
      .bind(eventId),
  ]);
  const event = eventResult?.results[0] as { id: string; org_id: string; type: string; dispatched_at: string | null } | undefined;
  if (!event || event.dispatched_at) return [];
  const endpoints = (endpointResult?.results ?? []) as { id: string; events: string }[];
  const at = now.toISOString();
  const deliveries = endpoints
    .filter((e) => subscribes(JSON.parse(e.events) as string[], event.type))
    .map((e) => {
      const id = newId("webhookDelivery");
      const statement = db
        .prepare(
          `INSERT OR IGNORE INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)`,
        )
        .bind(id, event.org_id, e.id, event.id, event.type, MAX_ATTEMPTS, at, at, at);
      return { id, statement };
    });
  const results = await db.batch([
    ...deliveries.map((d) => d.statement),
    db.prepare("UPDATE events SET dispatched_at = ? WHERE id = ? AND dispatched_at IS NULL").bind(at, event.id),
  ]);
  return deliveries.filter((_, i) => results[i]?.meta.changes === 1).map((d) => d.id);
}
