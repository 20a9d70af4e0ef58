import type { DeliveryStatus } from "../../db/schema";
import { newId } from "../../lib/ids";
import { jsonLists } from "../../lib/json-lists";
import { nextRetryAt } from "./retry-schedule";
import { endpointPausedEventInsert } from "../events/repository";
import type { AttemptResult, Outcome, SentAttempt } from "./deliver";
import { attemptsLogInsert, deliveriesAttemptedUpdate, endpointFailuresUpdate, endpointsRecoveredUpdate, goneDeliveriesFail, type LoadedDelivery } from "./repository";

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
    // the delivery rows (guarded per row as the sequential UPDATE was) and the attempt log, logged whether
    // or not that guard took, as the sequential INSERT was (repository.ts deliveriesAttemptedUpdate)
    statements.push(deliveriesAttemptedUpdate(db, at, list), attemptsLogInsert(db, at, list));
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

/** Deliveries whose endpoint was gone by the attempt: failed, in one statement per JSON list (the sequential guard per row). */
function failGone(db: D1Database, gone: { id: string; reason: string }[], at: string): D1PreparedStatement[] {
  return jsonLists(gone).map((list) => goneDeliveriesFail(db, at, list));
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
  if (healthy.length > 0) statements.push(endpointsRecoveredUpdate(db, healthy));
  for (const { row, recovered, failuresSince } of byEndpoint.values()) {
    if (failuresSince === 0) continue;
    const failures = (recovered ? 0 : (row.consecutive_failures ?? 0)) + failuresSince;
    const since = recovered ? at : (row.failing_since ?? at);
    const pause = pauseDue(failures, since, now);
    statements.push(endpointFailuresUpdate(db, { endpointId: row.endpoint_id, recovered, failures: failuresSince, pause, at }));
    if (pause) statements.push(pausedEvent(db, row, { failingSince: since, failures }, now));
  }
  return statements;
}

/** `webhook.endpoint_paused`, inserted only if the endpoint's UPDATE just before it in the batch paused it (its `paused_at` is this attempt's time). */
export function pausedEvent(db: D1Database, row: LoadedDelivery, run: { failingSince: string; failures: number }, now: Date): D1PreparedStatement {
  const at = now.toISOString();
  const data = { endpoint_id: row.endpoint_id, url: row.url, failing_since: run.failingSince, consecutive_failures: run.failures, paused_at: at };
  return endpointPausedEventInsert(db, { id: newId("event"), orgId: row.org_id, endpointId: row.endpoint_id, data: JSON.stringify(data), at });
}
