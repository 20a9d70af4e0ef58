import type { GlobalDb, ShardDb } from "../../lib/shards";
import type { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../../db/schema";
import type { Row } from "../../db/row";
import { notFound, unprocessable } from "../../lib/errors";
import type { EventRow } from "../events/repository";

export type EndpointRow = Row<typeof webhookEndpoints>;
export type DeliveryRow = Row<typeof webhookDeliveries>;
export type AttemptRow = Row<typeof webhookAttempts>;

/** A live (not soft-deleted) endpoint of the organization; anything else is 404, never a leak. */
export async function getEndpoint(db: GlobalDb, orgId: string, endpointId: string, opts: { includeDeleted?: boolean } = {}) {
  const row = await db
    .prepare(`SELECT * FROM webhook_endpoints WHERE id = ? AND org_id = ?${opts.includeDeleted ? "" : " AND deleted_at IS NULL"}`)
    .bind(endpointId, orgId)
    .first<EndpointRow>();
  if (!row) throw notFound("Webhook endpoint");
  return row;
}

export async function getDelivery(db: ShardDb, orgId: string, deliveryId: string) {
  const row = await db.prepare("SELECT * FROM webhook_deliveries WHERE id = ? AND org_id = ?").bind(deliveryId, orgId).first<DeliveryRow>();
  if (!row) throw notFound("Webhook delivery");
  return row;
}

/** The rotation window is open while `grace_expires_at` is in the future. */
export const inGraceWindow = (row: Pick<EndpointRow, "previous_secret" | "grace_expires_at">, now: Date) =>
  row.previous_secret !== null && row.grace_expires_at !== null && Date.parse(row.grace_expires_at) > now.getTime();

/** Failures in a row from which an endpoint shows `failing` (and the sweep backs off: deliver.ts BACKOFF_AFTER_FAILURES). */
const FAILING_AFTER = 5;

/** What the console shows: disabled by an admin, paused after failing for days, failing (backed off), or active. */
export function endpointState(row: Pick<EndpointRow, "is_active" | "paused_at" | "consecutive_failures">): "active" | "failing" | "paused" | "disabled" {
  if (row.is_active !== 1) return "disabled";
  if (row.paused_at) return "paused";
  return row.consecutive_failures >= FAILING_AFTER ? "failing" : "active";
}

export function endpointView(row: EndpointRow, now = new Date()) {
  return {
    endpoint_id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    is_active: row.is_active === 1,
    secret_set: row.secret !== null,
    grace_expires_at: inGraceWindow(row, now) ? row.grace_expires_at : null,
    state: endpointState(row),
    consecutive_failures: row.consecutive_failures,
    failing_since: row.failing_since,
    paused_at: row.paused_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function deliveryView(row: DeliveryRow) {
  return {
    delivery_id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    response_code: row.response_status,
    response_body: row.response_body,
    duration_ms: row.duration_ms,
    error: row.last_error,
    last_attempt_at: row.last_attempt_at,
    next_retry_at: row.status === "pending" ? row.next_attempt_at : null,
    redelivery_of: row.redelivery_of,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Stops an endpoint's in-flight deliveries (spec 6.4.4): pending rows become failed at once and the
 * sweep never picks them up again. Run on every shard of the organization after the global update that
 * disables or deletes the endpoint (fail-in-flight.ts).
 */
export function failInFlight(db: ShardDb, endpointId: string, reason: string, at: string): D1PreparedStatement {
  return db
    .prepare(
      "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = ?, updated_at = ? WHERE endpoint_id = ? AND status = 'pending'",
    )
    .bind(reason, at, endpointId);
}

/** A URL refused by the policy, as the 422 issue shape every other field error has. */
export function invalidUrl(url: string, reason: string) {
  return unprocessable("Validation failed", [
    { code: "invalid_url", expected: "public HTTPS URL", received: JSON.stringify(url).slice(0, 100), path: ["url"], message: `URL not allowed: ${reason}` },
  ]);
}

export const isEndpointLimitError = (err: unknown) => err instanceof Error && err.message.includes("webhook_endpoint_limit");

// ---- webhook_endpoints ----

/** Every live endpoint of the organization, oldest first. */
export async function listLiveEndpoints(db: GlobalDb, orgId: string): Promise<EndpointRow[]> {
  const { results } = await db
    .prepare("SELECT * FROM webhook_endpoints WHERE org_id = ? AND deleted_at IS NULL ORDER BY created_at, id")
    .bind(orgId)
    .all<EndpointRow>();
  return results;
}

/** The organization's live legacy endpoint (the target of PATCH /partner/webhook), if any. */
export const findLegacyEndpoint = (db: GlobalDb, orgId: string) =>
  db.prepare("SELECT * FROM webhook_endpoints WHERE org_id = ? AND legacy = 1 AND deleted_at IS NULL").bind(orgId).first<EndpointRow>();

/** The INSERT of a new, active endpoint (`secret` null: unsigned). The 25-endpoint limit is a trigger (isEndpointLimitError). */
export function endpointInsert(
  db: GlobalDb,
  input: { id: string; orgId: string; url: string; description: string; events: string[]; secret: string | null; legacy: boolean; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO webhook_endpoints (id, org_id, url, description, events, is_active, secret, legacy, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
    )
    .bind(input.id, input.orgId, input.url, input.description, JSON.stringify(input.events), input.secret, input.legacy ? 1 : 0, input.at, input.at);
}

/**
 * The UPDATE of a live endpoint's columns in `changes` (column name to value, names from the caller's
 * code, never from input); `resume` also clears the pause and the failure run.
 */
export function endpointUpdate(
  db: GlobalDb,
  input: { id: string; orgId: string; changes: Record<string, string | number>; resume: boolean; at: string },
): D1PreparedStatement {
  const columns = Object.keys(input.changes);
  const resume = input.resume ? ", paused_at = NULL, consecutive_failures = 0, failing_since = NULL" : "";
  return db
    .prepare(`UPDATE webhook_endpoints SET ${columns.map((c) => `${c} = ?`).join(", ")}${resume}, updated_at = ? WHERE id = ? AND org_id = ? AND deleted_at IS NULL`)
    .bind(...columns.map((c) => input.changes[c]!), input.at, input.id, input.orgId);
}

/** The soft delete of a live endpoint (it also stops being active). */
export function endpointSoftDelete(db: GlobalDb, input: { id: string; orgId: string; at: string }): D1PreparedStatement {
  return db
    .prepare("UPDATE webhook_endpoints SET deleted_at = ?, is_active = 0, updated_at = ? WHERE id = ? AND org_id = ? AND deleted_at IS NULL")
    .bind(input.at, input.at, input.id, input.orgId);
}

/** The secret rotation, guarded on the secret the caller read (`currentSecret`): of two racing rotations one changes nothing. */
export function endpointSecretRotate(
  db: GlobalDb,
  input: { id: string; orgId: string; secret: string; currentSecret: string | null; graceExpiresAt: string | null; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE webhook_endpoints SET secret = ?, previous_secret = ?, grace_expires_at = ?, updated_at = ?
       WHERE id = ? AND org_id = ? AND deleted_at IS NULL AND secret IS ?`,
    )
    .bind(input.secret, input.currentSecret, input.graceExpiresAt, input.at, input.id, input.orgId, input.currentSecret);
}

/** Clears the failure run of endpoints whose attempts all succeeded (record-attempts.ts). */
export function endpointsRecoveredUpdate(db: GlobalDb, endpointIds: readonly string[]): D1PreparedStatement {
  // `consecutive_failures > 0`: an endpoint already healthy is not rewritten (D1 bills rows written).
  return db
    .prepare("UPDATE webhook_endpoints SET consecutive_failures = 0, failing_since = NULL WHERE id IN (SELECT value FROM json_each(?)) AND consecutive_failures > 0")
    .bind(JSON.stringify(endpointIds));
}

/**
 * Extends (or, `recovered`, restarts at `at`) an endpoint's failure run by `failures` attempts, and
 * pauses it at `at` if `pause` and it is not paused yet (record-attempts.ts). Returns the endpoint's
 * `paused_at`: equal to `at` when this UPDATE paused it.
 */
export function endpointFailuresUpdate(
  db: GlobalDb,
  input: { endpointId: string; recovered: boolean; failures: number; pause: boolean; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE webhook_endpoints SET consecutive_failures = CASE WHEN ?1 = 1 THEN 0 ELSE consecutive_failures END + ?2,
         failing_since = CASE WHEN ?1 = 1 THEN ?3 ELSE COALESCE(failing_since, ?3) END,
         paused_at = CASE WHEN ?4 = 1 AND paused_at IS NULL THEN ?3 ELSE paused_at END
       WHERE id = ?5
       RETURNING id, org_id, paused_at`,
    )
    .bind(input.recovered ? 1 : 0, input.failures, input.at, input.pause ? 1 : 0, input.endpointId);
}

// ---- webhook_deliveries ----

/** One page of an endpoint's deliveries, newest first (optionally of one status), and their total: one round trip. */
export async function listEndpointDeliveries(
  db: ShardDb,
  input: { endpointId: string; orgId: string; status?: DeliveryRow["status"]; limit: number; offset: number },
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const where = input.status ? "endpoint_id = ? AND org_id = ? AND status = ?" : "endpoint_id = ? AND org_id = ?";
  const params = input.status ? [input.endpointId, input.orgId, input.status] : [input.endpointId, input.orgId];
  const [rows, count] = await db.batch<DeliveryRow | { total: number }>([
    db.prepare(`SELECT * FROM webhook_deliveries WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`).bind(...params, input.limit, input.offset),
    db.prepare(`SELECT COUNT(*) AS total FROM webhook_deliveries WHERE ${where}`).bind(...params),
  ]);
  return {
    rows: (rows?.results ?? []) as DeliveryRow[],
    total: (count?.results[0] as { total: number } | undefined)?.total ?? 0,
  };
}

/** The INSERT of a replay of `original`: a new pending delivery, due at `at`, linked by `redelivery_of`. */
export function redeliveryInsert(
  db: ShardDb,
  input: { id: string; orgId: string; original: Pick<DeliveryRow, "id" | "endpoint_id" | "event_id" | "event_type">; maxAttempts: number; at: string },
): D1PreparedStatement {
  const { original } = input;
  return db
    .prepare(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, status, attempts, max_attempts, next_attempt_at, redelivery_of, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?)`,
    )
    .bind(input.id, input.orgId, original.endpoint_id, original.event_id, original.event_type, input.maxAttempts, input.at, original.id, input.at, input.at);
}

/** The INSERT of a test event's single-attempt delivery, born claimed until `claimUntil` (send-test-event.ts). */
export function testDeliveryInsert(
  db: ShardDb,
  input: { id: string; orgId: string; endpointId: string; eventId: string; claimUntil: string; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'webhook.test', 'pending', 0, 1, ?, ?, ?)`,
    )
    .bind(input.id, input.orgId, input.endpointId, input.eventId, input.claimUntil, input.at, input.at);
}

/** The claim of one due delivery: its `next_attempt_at` pushed to `until`; changes nothing unless it is pending and due at `now`. */
export function deliveryClaim(db: ShardDb, input: { id: string; until: string; now: string }): D1PreparedStatement {
  return db.prepare("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at <= ?").bind(input.until, input.id, input.now);
}

/**
 * deliveryClaim for many deliveries in one statement; RETURNING names the ones it claimed (due, pending,
 * nobody's lease running). `+status`: found by id, not through the due index (as deliveriesAttemptedUpdate).
 */
export function deliveriesClaim(db: ShardDb, input: { ids: readonly string[]; until: string; now: string }): D1PreparedStatement {
  return db
    .prepare("UPDATE webhook_deliveries SET next_attempt_at = ?1 WHERE id IN (SELECT value FROM json_each(?2)) AND +status = 'pending' AND +next_attempt_at <= ?3 RETURNING id")
    .bind(input.until, JSON.stringify(input.ids), input.now);
}

/** The endpoint fields an attempt needs (and its health), read from the global database. */
export type EndpointTarget = Pick<
  EndpointRow,
  "id" | "org_id" | "url" | "is_active" | "deleted_at" | "secret" | "previous_secret" | "grace_expires_at" | "consecutive_failures" | "failing_since" | "paused_at"
>;

const ENDPOINT_TARGET_COLUMNS = "id, org_id, url, is_active, deleted_at, secret, previous_secret, grace_expires_at, consecutive_failures, failing_since, paused_at";

/** Endpoints by id, in one read of the global database (deleted ones too: an attempt must see it is gone). */
export async function endpointTargets(db: GlobalDb, endpointIds: readonly string[]): Promise<Map<string, EndpointTarget>> {
  const ids = [...new Set(endpointIds)];
  if (ids.length === 0) return new Map();
  const { results } = await db
    .prepare(`SELECT ${ENDPOINT_TARGET_COLUMNS} FROM webhook_endpoints WHERE id IN (SELECT value FROM json_each(?))`)
    .bind(JSON.stringify(ids))
    .all<EndpointTarget>();
  return new Map(results.map((r) => [r.id, r]));
}

/** The live endpoints of these organizations, in registration order (rowid), for the fan-out. */
export async function liveEndpointsOfOrgs(db: GlobalDb, orgIds: readonly string[]): Promise<(EndpointTarget & Pick<EndpointRow, "events">)[]> {
  if (orgIds.length === 0) return [];
  const { results } = await db
    .prepare(
      `SELECT ${ENDPOINT_TARGET_COLUMNS}, events FROM webhook_endpoints
       WHERE org_id IN (SELECT value FROM json_each(?)) AND is_active = 1 AND deleted_at IS NULL ORDER BY rowid`,
    )
    .bind(JSON.stringify([...new Set(orgIds)]))
    .all<EndpointTarget & Pick<EndpointRow, "events">>();
  return results;
}

/** Whether the organization has a live endpoint (a create commits its event already dispatched when not). */
export async function hasLiveEndpoint(db: GlobalDb, orgId: string): Promise<boolean> {
  const row = await db.prepare("SELECT 1 AS hit FROM webhook_endpoints WHERE org_id = ? AND is_active = 1 AND deleted_at IS NULL LIMIT 1").bind(orgId).first();
  return row !== null;
}

/**
 * The anchor rows on a shard of the endpoints its deliveries reference (shards/repository.ts
 * endpointAnchorInsert, for many endpoints in one statement): deleted, inactive, no URL, no events,
 * never read. `WHERE NOT EXISTS`: on a shard that is also the global database the real row stays, and
 * the 25-endpoint trigger (which OR IGNORE does not silence) never fires.
 */
export function endpointAnchorsInsert(db: ShardDb, endpoints: readonly Pick<EndpointRow, "id" | "org_id">[], at: string): D1PreparedStatement {
  return db
    .prepare(
      `INSERT OR IGNORE INTO webhook_endpoints (id, org_id, url, events, is_active, created_at, updated_at, deleted_at)
       SELECT json_extract(value, '$.id'), json_extract(value, '$.org_id'), '', '[]', 0, ?1, ?1, ?1 FROM json_each(?2)
       WHERE NOT EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.id = json_extract(value, '$.id'))`,
    )
    .bind(at, JSON.stringify(endpoints.map((e) => ({ id: e.id, org_id: e.org_id }))));
}

/** A delivery (a shard row) with its event's fields. */
export type DeliveryWithEvent = DeliveryRow &
  Pick<EventRow, "envelope_id"> & {
    event_data: EventRow["data"];
    event_created_at: EventRow["created_at"];
  };

/** A delivery with what an attempt needs: its event's fields (shard) and its endpoint's (global). */
export type LoadedDelivery = DeliveryWithEvent & Omit<EndpointTarget, "id" | "org_id">;

/**
 * The deliveries with their events' fields, on the delivery's shard (DeliveryWithEvent); append the
 * WHERE on `d`. The endpoint's fields come from the global database (endpointTargets, loadedWith).
 */
export const SELECT_DELIVERIES_WITH_EVENT = `SELECT d.*, ev.envelope_id, ev.data AS event_data, ev.created_at AS event_created_at
  FROM webhook_deliveries d
  JOIN events ev ON ev.id = d.event_id AND ev.org_id = d.org_id`;

/** One delivery with its event, as a statement (its shard). */
export const deliveryWithEventSelect = (db: ShardDb, deliveryId: string): D1PreparedStatement =>
  db.prepare(`${SELECT_DELIVERIES_WITH_EVENT} WHERE d.id = ?`).bind(deliveryId);

/** Many deliveries with their events, as a statement (their shard). */
export const deliveriesWithEventSelect = (db: ShardDb, deliveryIds: readonly string[]): D1PreparedStatement =>
  db.prepare(`${SELECT_DELIVERIES_WITH_EVENT} WHERE d.id IN (SELECT value FROM json_each(?))`).bind(JSON.stringify(deliveryIds));

/**
 * A delivery joined with its endpoint read from global: null when the endpoint is missing or belongs
 * to another organization (a delivery can only ever reach its own organization's endpoint).
 */
export function loadedWith(row: DeliveryWithEvent | null | undefined, endpoint: EndpointTarget | undefined): LoadedDelivery | null {
  if (!row || !endpoint || endpoint.org_id !== row.org_id) return null;
  const { id: _id, org_id: _org, ...fields } = endpoint;
  return { ...row, ...fields };
}

/** Claimed deliveries handed back unattempted: due at `at`. */
export function releaseClaimsUpdate(db: ShardDb, deliveryIds: readonly string[], at: string): D1PreparedStatement {
  // `+status`, `+attempts`: found by id; without the unary plus SQLite may walk the pending-delivery
  // index of every organization instead (as in deliveriesAttemptedUpdate).
  return db
    .prepare("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id IN (SELECT value FROM json_each(?)) AND +status = 'pending' AND +attempts = 0")
    .bind(at, JSON.stringify(deliveryIds));
}

/**
 * The delivery rows of many attempts in one statement: `list` is a JSON list of attempt entries
 * (record-attempts.ts attemptEntry), `at` the attempts' time.
 */
export function deliveriesAttemptedUpdate(db: ShardDb, at: string, list: string): D1PreparedStatement {
  // UPDATE … FROM a json_each of the attempts: one statement for every row. The guard is the
  // sequential one per row (still pending, and at the attempt count read): a delivery an endpoint's
  // disable failed meanwhile stays failed. `+status`, `+attempts`: without the unary plus SQLite walks
  // the due index over every pending delivery of every organization and joins the list to each;
  // with it, it reads the list and finds each row by id.
  return db
    .prepare(
      `UPDATE webhook_deliveries SET status = a.status, attempts = a.attempt, next_attempt_at = a.next_at, last_attempt_at = ?1,
         response_status = a.response_status, response_body = a.response_body, duration_ms = a.duration_ms, last_error = a.error, updated_at = ?1
       FROM (
         SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.status') AS status, json_extract(value, '$.attempt') AS attempt,
                json_extract(value, '$.read_attempts') AS read_attempts, json_extract(value, '$.next_at') AS next_at,
                json_extract(value, '$.response_status') AS response_status, json_extract(value, '$.response_body') AS response_body,
                json_extract(value, '$.duration_ms') AS duration_ms, json_extract(value, '$.error') AS error
         FROM json_each(?2)
       ) a
       WHERE webhook_deliveries.id = a.id AND +webhook_deliveries.status = 'pending' AND +webhook_deliveries.attempts = a.read_attempts`,
    )
    .bind(at, list);
}

/** Deliveries whose endpoint was gone by the attempt, failed in one statement: `list` is a JSON list of `{ id, reason }`. */
export function goneDeliveriesFail(db: ShardDb, at: string, list: string): D1PreparedStatement {
  // the sequential guard per row; `+status` as in deliveriesAttemptedUpdate
  return db
    .prepare(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = g.reason, updated_at = ?1
       FROM (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.reason') AS reason FROM json_each(?2)) g
       WHERE webhook_deliveries.id = g.id AND +webhook_deliveries.status = 'pending'`,
    )
    .bind(at, list);
}

/**
 * A round's due deliveries, shared across organizations: each organization's oldest first, then each
 * one's second, and so on (the order the senders start them in), at most `perOrg` per organization and
 * `perEndpoint` per endpoint, none for a paused endpoint, and for an endpoint failing
 * `backoffAfter` times in a row one probe a run (`?6`: the failing endpoints already probed);
 * its other deliveries wait for a run after the probe succeeds. One organization's backlog of slow or failing receivers takes
 * its share of a round, never the round. The endpoints' health (`?7`, a JSON list of `{ id, consecutive_failures,
 * paused }`) is read from the global database first (dueDeliveriesFairly); a delivery whose endpoint is not
 * in it (gone from global) is taken as healthy, so its attempt fails it.
 */
const DUE_FAIRLY = `
  SELECT id, endpoint_id, consecutive_failures FROM (
    SELECT d.id, d.endpoint_id, d.next_attempt_at,
           ROW_NUMBER() OVER (PARTITION BY d.org_id ORDER BY d.next_attempt_at, d.id) AS org_rank,
           ROW_NUMBER() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.id) AS endpoint_rank,
           e.consecutive_failures
    FROM webhook_deliveries d
    JOIN (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.consecutive_failures') AS consecutive_failures,
                 json_extract(value, '$.paused') AS paused FROM json_each(?7)) e ON e.id = d.endpoint_id
    WHERE d.status = 'pending' AND d.next_attempt_at <= ?1 AND e.paused = 0
      AND NOT (e.consecutive_failures >= ?3 AND d.endpoint_id IN (SELECT value FROM json_each(?6)))
  )
  WHERE org_rank <= ?2 AND endpoint_rank <= CASE WHEN consecutive_failures >= ?3 THEN 1 ELSE ?4 END
  ORDER BY org_rank, next_attempt_at, id
  LIMIT ?5`;

export type DueDelivery = Pick<DeliveryRow, "id" | "endpoint_id"> & Pick<EndpointRow, "consecutive_failures">;

/**
 * The deliveries due at `now` on a shard, fairly across organizations (DUE_FAIRLY), at most `limit`:
 * the endpoints with due deliveries on the shard, their health from global in one read, then the round.
 */
export async function dueDeliveriesFairly(
  db: ShardDb,
  global: GlobalDb,
  input: { now: string; perOrg: number; backoffAfter: number; perEndpoint: number; limit: number; probed: readonly string[] },
): Promise<DueDelivery[]> {
  const { results: due } = await db
    .prepare("SELECT DISTINCT endpoint_id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?")
    .bind(input.now)
    .all<{ endpoint_id: string }>();
  if (due.length === 0) return [];
  const targets = await endpointTargets(
    global,
    due.map((d) => d.endpoint_id),
  );
  const health = due.map(({ endpoint_id }) => {
    const e = targets.get(endpoint_id);
    return { id: endpoint_id, consecutive_failures: e?.consecutive_failures ?? 0, paused: e?.paused_at ? 1 : 0 };
  });
  const { results } = await db
    .prepare(DUE_FAIRLY)
    .bind(input.now, input.perOrg, input.backoffAfter, input.perEndpoint, input.limit, JSON.stringify(input.probed), JSON.stringify(health))
    .all<DueDelivery>();
  return results;
}

// ---- webhook_attempts ----

/** A delivery's attempt log, in order, as a statement (get-delivery.ts batches it). */
export const deliveryAttemptsSelect = (db: ShardDb, deliveryId: string): D1PreparedStatement =>
  db.prepare("SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt, id").bind(deliveryId);

/** The attempt log of many attempts in one INSERT: `list` as for deliveriesAttemptedUpdate. */
export function attemptsLogInsert(db: ShardDb, at: string, list: string): D1PreparedStatement {
  // `ORDER BY key`: the log's rowids follow the order the attempts count in.
  return db
    .prepare(
      `INSERT INTO webhook_attempts (delivery_id, org_id, attempt, attempted_at, succeeded, response_status, response_body, error, duration_ms, next_attempt_at)
       SELECT json_extract(value, '$.id'), json_extract(value, '$.org_id'), json_extract(value, '$.attempt'), ?1, json_extract(value, '$.succeeded'),
              json_extract(value, '$.response_status'), json_extract(value, '$.response_body'), json_extract(value, '$.error'),
              json_extract(value, '$.duration_ms'), json_extract(value, '$.next_at')
       FROM json_each(?2) ORDER BY key`,
    )
    .bind(at, list);
}

/**
 * Deletes at most `limit` attempt rows older than `cutoff` whose delivery is settled (`succeeded` or
 * `failed`), oldest first. The scan walks the `attempted_at` index, so a run with nothing past the
 * cutoff reads no rows, however long the log.
 */
export async function pruneSettledAttempts(db: ShardDb, input: { cutoff: string; limit: number }): Promise<D1Result> {
  return db
    .prepare(
      `DELETE FROM webhook_attempts WHERE id IN (
         SELECT a.id FROM webhook_attempts a INDEXED BY webhook_attempts_attempted_idx
         WHERE a.attempted_at < ?
           AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id AND d.status IN ('succeeded', 'failed'))
         ORDER BY a.attempted_at LIMIT ${input.limit})`,
    )
    .bind(input.cutoff)
    .run();
}
