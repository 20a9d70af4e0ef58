import type { DeliveryStatus } from "../../db/schema";
import { newId } from "../../lib/ids";
import { jsonLists } from "../../lib/json-lists";
import { nextRetryAt } from "./retry-schedule";
import type { AttemptResult, LoadedDelivery, Outcome, SentAttempt } from "./deliver";

/**
 * An endpoint that has failed every attempt for this long (and at least PAUSE_MIN_FAILURES times) is
 * paused, as Svix disables one after 5 days and Stripe after several days of failures: nothing more
 * is sent, its deliveries wait as `pending`, a `webhook.endpoint_paused` event says so, and the
 * endpoint shows `state: "paused"` until an admin resumes it (PATCH with `is_active: true` or a new url).
 */
export const PAUSE_AFTER_MS = 3 * 24 * 3_600_000;
export const PAUSE_MIN_FAILURES = 20;

/** The pause rule: a failure run at least PAUSE_MIN_FAILURES long that started PAUSE_AFTER_MS ago or more. */
export const pauseDue = (failures: number, failingSince: string, now: Date) => failures >= PAUSE_MIN_FAILURES && now.getTime() - Date.parse(failingSince) >= PAUSE_AFTER_MS;

/** What an attempt's answer makes of its delivery: the row's new state and the attempt's log entry. */
export type AttemptRecord = AttemptResult & { at: string; responseBody: string | null };

export function attemptRecord(row: LoadedDelivery, outcome: Outcome, now: Date): AttemptRecord {
  const attempt = row.attempts + 1;
  const succeeded = outcome.responseStatus !== null && outcome.responseStatus >= 200 && outcome.responseStatus < 300;
  const next = succeeded ? null : nextRetryAt(attempt, row.max_attempts, now);
  const status: DeliveryStatus = succeeded ? "succeeded" : next ? "pending" : "failed";
  return {
    deliveryId: row.id,
    attempt,
    succeeded,
    status,
    responseStatus: outcome.responseStatus,
    responseBody: outcome.responseBody,
    error: outcome.error,
    durationMs: Math.round(outcome.durationMs),
    nextAttemptAt: next?.toISOString() ?? null,
    at: now.toISOString(),
  };
}

/** The result a caller sees, without the log's copy of the receiver's answer. */
export const attemptResultOf = ({ at: _at, responseBody: _body, ...result }: AttemptRecord): AttemptResult => result;

/**
 * The writes that record many attempts, whatever their number: the delivery rows in one UPDATE and the
 * attempt log in one INSERT per JSON list (lib/json-lists.ts: the 150 first attempts of an invocation,
 * each answer capped at 2 KB by deliver.ts RESPONSE_BODY_LIMIT, fit one list), the endpoints whose
 * attempts all succeeded in one UPDATE, and one UPDATE (plus one pause event at most) per endpoint that
 * failed. The sequential
 * statements of deliver.ts (three or four per attempt) ran past D1's 1,000 statements per invocation
 * once a bulk chunk fanned out to 25 endpoints. `sent` is in the order the attempts are to count in.
 */
export function recordAttemptsStatements(db: D1Database, sent: readonly SentAttempt[], now: Date): { statements: D1PreparedStatement[]; results: AttemptResult[] } {
  const at = now.toISOString();
  const gone = sent.flatMap((s) => (s.kind === "gone" ? [{ id: s.deliveryId, reason: s.reason }] : []));
  const answered = sent.flatMap((s) => (s.kind === "sent" ? [{ row: s.row, record: attemptRecord(s.row, s.outcome, now) }] : []));
  const statements = [...failGone(db, gone, at)];
  for (const list of jsonLists(answered.map(({ row, record }) => attemptEntry(row, record)))) {
    statements.push(
      // UPDATE … FROM a json_each of the attempts: one statement for every row. The guard is the
      // sequential one per row (still pending, and at the attempt count read): a delivery an endpoint's
      // disable failed meanwhile stays failed. `+status`, `+attempts`: without the unary plus SQLite walks
      // the due index over every pending delivery of every organization and joins the list to each;
      // with it, it reads the list and finds each row by id.
      db
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
        .bind(at, list),
      // Logged whether or not the guard above took, as the sequential INSERT was. `ORDER BY key`: the log's
      // rowids follow the order the attempts count in.
      db
        .prepare(
          `INSERT INTO webhook_attempts (delivery_id, org_id, attempt, attempted_at, succeeded, response_status, response_body, error, duration_ms, next_attempt_at)
           SELECT json_extract(value, '$.id'), json_extract(value, '$.org_id'), json_extract(value, '$.attempt'), ?1, json_extract(value, '$.succeeded'),
                  json_extract(value, '$.response_status'), json_extract(value, '$.response_body'), json_extract(value, '$.error'),
                  json_extract(value, '$.duration_ms'), json_extract(value, '$.next_at')
           FROM json_each(?2) ORDER BY key`,
        )
        .bind(at, list),
    );
  }
  statements.push(...endpointsHealth(db, answered, now));
  return { statements, results: answered.map(({ record }) => attemptResultOf(record)) };
}

function attemptEntry(row: LoadedDelivery, record: AttemptRecord) {
  return {
    id: row.id,
    org_id: row.org_id,
    read_attempts: row.attempts,
    attempt: record.attempt,
    status: record.status,
    succeeded: record.succeeded ? 1 : 0,
    next_at: record.nextAttemptAt,
    response_status: record.responseStatus,
    response_body: record.responseBody,
    error: record.error,
    duration_ms: record.durationMs,
  };
}

/** Deliveries whose endpoint was gone by the attempt: failed, in one statement (the sequential guard per row; `+status` as above). */
function failGone(db: D1Database, gone: { id: string; reason: string }[], at: string): D1PreparedStatement[] {
  return jsonLists(gone).map((list) =>
    db
      .prepare(
        `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = g.reason, updated_at = ?1
         FROM (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.reason') AS reason FROM json_each(?2)) g
         WHERE webhook_deliveries.id = g.id AND +webhook_deliveries.status = 'pending'`,
      )
      .bind(at, list),
  );
}

/**
 * Endpoint health after many attempts, folded per endpoint in the attempts' order so the end state is
 * the one a statement per attempt would leave: the last success clears the failure run, the
 * failures after it extend the run (added to the stored count, so attempts recorded meanwhile by
 * another invocation still count). The pause rule is applied to the run as it stands after the
 * attempts (an endpoint that answered one of them is alive: its run restarts now and cannot pause), and
 * the pause event is inserted only if this UPDATE paused the endpoint, once per endpoint.
 */
function endpointsHealth(db: D1Database, answered: { row: LoadedDelivery; record: AttemptRecord }[], now: Date): D1PreparedStatement[] {
  const at = now.toISOString();
  const byEndpoint = new Map<string, { row: LoadedDelivery; recovered: boolean; failuresSince: number }>();
  for (const { row, record } of answered) {
    const health = byEndpoint.get(row.endpoint_id) ?? { row, recovered: false, failuresSince: 0 };
    if (record.succeeded) Object.assign(health, { recovered: true, failuresSince: 0 });
    else health.failuresSince += 1;
    byEndpoint.set(row.endpoint_id, health);
  }
  const healthy = [...byEndpoint.values()].filter((h) => h.failuresSince === 0).map((h) => h.row.endpoint_id);
  const statements: D1PreparedStatement[] = [];
  if (healthy.length > 0) {
    // `consecutive_failures > 0`: an endpoint already healthy is not rewritten (D1 bills rows written).
    statements.push(
      db
        .prepare("UPDATE webhook_endpoints SET consecutive_failures = 0, failing_since = NULL WHERE id IN (SELECT value FROM json_each(?)) AND consecutive_failures > 0")
        .bind(JSON.stringify(healthy)),
    );
  }
  for (const { row, recovered, failuresSince } of byEndpoint.values()) {
    if (failuresSince === 0) continue;
    const failures = (recovered ? 0 : (row.consecutive_failures ?? 0)) + failuresSince;
    const since = recovered ? at : (row.failing_since ?? at);
    const pause = pauseDue(failures, since, now);
    statements.push(
      db
        .prepare(
          `UPDATE webhook_endpoints SET consecutive_failures = CASE WHEN ?1 = 1 THEN 0 ELSE consecutive_failures END + ?2,
             failing_since = CASE WHEN ?1 = 1 THEN ?3 ELSE COALESCE(failing_since, ?3) END,
             paused_at = CASE WHEN ?4 = 1 AND paused_at IS NULL THEN ?3 ELSE paused_at END
           WHERE id = ?5`,
        )
        .bind(recovered ? 1 : 0, failuresSince, at, pause ? 1 : 0, row.endpoint_id),
    );
    if (pause) statements.push(pausedEvent(db, row, { failingSince: since, failures }, now));
  }
  return statements;
}

/** `webhook.endpoint_paused`, inserted only if the endpoint's UPDATE just before it in the batch paused it (its `paused_at` is this attempt's time). */
export function pausedEvent(db: D1Database, row: LoadedDelivery, run: { failingSince: string; failures: number }, now: Date): D1PreparedStatement {
  const at = now.toISOString();
  const data = { endpoint_id: row.endpoint_id, url: row.url, failing_since: run.failingSince, consecutive_failures: run.failures, paused_at: at };
  return db
    .prepare(
      `INSERT INTO events (id, org_id, envelope_id, type, data, created_at)
       SELECT ?, ?, NULL, 'webhook.endpoint_paused', ?, ? WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ? AND paused_at = ?)`,
    )
    .bind(newId("event"), row.org_id, JSON.stringify(data), at, row.endpoint_id, at);
}
