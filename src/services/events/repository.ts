import type { events } from "../../db/schema";
import type { Row } from "../../db/row";
import type { ShardDb } from "../../lib/shards";

/** One `events` row as D1 returns it (`data` is the JSON text). */
export type EventRow = Row<typeof events>;

/** The INSERT of one undispatched outbox event (the dispatch fans it out later); with `onlyIf`, only where that SQL condition holds. */
export function eventInsert(
  db: ShardDb,
  row: { id: string; orgId: string; envelopeId: string | null; type: string; data: string; createdAt: string },
  onlyIf?: { sql: string; params: unknown[] },
): D1PreparedStatement {
  if (onlyIf) {
    return db
      .prepare(`INSERT INTO events (id, org_id, envelope_id, type, data, created_at) SELECT ?, ?, ?, ?, ?, ? WHERE ${onlyIf.sql}`)
      .bind(row.id, row.orgId, row.envelopeId, row.type, row.data, row.createdAt, ...onlyIf.params);
  }
  return db
    .prepare("INSERT INTO events (id, org_id, envelope_id, type, data, created_at) VALUES (?, ?, ?, ?, ?, ?)")
    .bind(row.id, row.orgId, row.envelopeId, row.type, row.data, row.createdAt);
}

/** The INSERT of one event that is never dispatched: it is recorded already dispatched (`dispatched_at = at`). */
export function dispatchedEventInsert(
  db: ShardDb,
  row: { id: string; orgId: string; envelopeId: string | null; type: string; data: string; createdAt: string; dispatchedAt: string },
): D1PreparedStatement {
  return db
    .prepare("INSERT INTO events (id, org_id, envelope_id, type, data, created_at, dispatched_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .bind(row.id, row.orgId, row.envelopeId, row.type, row.data, row.createdAt, row.dispatchedAt);
}

/** The fields of one event a webhook payload is built from, as a statement (webhooks/get-delivery.ts batches it). */
export function eventPayloadSelect(db: ShardDb, orgId: string, eventId: string): D1PreparedStatement {
  return db.prepare("SELECT id, org_id, type, envelope_id, data, created_at FROM events WHERE id = ? AND org_id = ?").bind(eventId, orgId);
}

/** Marks one event dispatched (an event that is never fanned out, as a webhook test's). */
export function eventDispatchedUpdate(db: ShardDb, eventId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE events SET dispatched_at = ? WHERE id = ?").bind(at, eventId);
}

/** Of these event ids, the ones already dispatched. */
export async function dispatchedEventIds(db: ShardDb, eventIds: readonly string[]): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT id FROM events WHERE id IN (SELECT value FROM json_each(?)) AND dispatched_at IS NOT NULL")
    .bind(JSON.stringify(eventIds))
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/** The oldest events still undispatched that were written at or before `cutoff`, at most `limit`, with when each was written. */
export async function undispatchedEvents(db: ShardDb, input: { cutoff: string; limit: number }): Promise<{ id: string; created_at: string }[]> {
  const { results } = await db
    .prepare("SELECT id, created_at FROM events WHERE dispatched_at IS NULL AND created_at <= ? ORDER BY created_at LIMIT ?")
    .bind(input.cutoff, input.limit)
    .all<{ id: string; created_at: string }>();
  return results;
}

/**
 * The `envelope.created` event of an envelope inserted earlier in the same batch: its data is
 * assembled in SQL from the envelope row (services/bulk/create-bulk-envelope.ts).
 */
export function envelopeCreatedEventInsert(db: ShardDb, input: { id: string; envelopeId: string; at: string }): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO events (id, org_id, envelope_id, type, data, created_at)
         SELECT ?, e.org_id, e.id, 'envelope.created',
           json_object('envelope_id', e.id, 'envelope_name', e.name, 'status', e.status, 'customer_id', e.customer_id, 'external_id', e.external_id), ?
         FROM envelopes e WHERE e.id = ?`,
    )
    .bind(input.id, input.at, input.envelopeId);
}

/**
 * The `envelope.created` event of a single create (compose/create-envelope.ts): data assembled in SQL
 * from the envelope row of the same batch, committed already dispatched when the organization has no
 * live endpoint. `hasLiveEndpoint` is read from the global database first: endpoints are global, the
 * event is a shard row.
 */
export function envelopeCreatedEventInsertReturning(
  db: ShardDb,
  input: { id: string; envelopeId: string; at: string; hasLiveEndpoint: boolean },
): D1PreparedStatement {
  const live = input.hasLiveEndpoint ? "1" : "0";
  return db
    .prepare(
      `INSERT INTO events (id, org_id, envelope_id, type, data, created_at, dispatched_at)
       SELECT ?, e.org_id, e.id, 'envelope.created',
         json_object('envelope_id', e.id, 'envelope_name', e.name, 'status', e.status,
                     'customer_id', e.customer_id, 'external_id', e.external_id), ?,
         CASE WHEN ${live} THEN NULL ELSE ? END
       FROM envelopes e WHERE e.id = ?
       RETURNING dispatched_at`,
    )
    .bind(input.id, input.at, input.at, input.envelopeId);
}
