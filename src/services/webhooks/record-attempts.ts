import type { DeliveryStatus } from "../../db/schema";
import type { RequestContext } from "../../lib/context";
import { jsonLists } from "../../lib/json-lists";
import { shardDb, type GlobalDb, type ShardDb } from "../../lib/shards";
import { nextRetryAt } from "./retry-schedule";
import { outboxInsert } from "../events/outbox";
import { currentShardOf } from "../shards/repository";
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

/** An endpoint whose failure UPDATE may pause it, and what its `webhook.endpoint_paused` event would say. */
export type PauseCandidate = { row: LoadedDelivery; failingSince: string; failures: number };

/**
 * The writes that record many attempts, whatever their number: on the deliveries' shard, the delivery
 * rows in one UPDATE and the attempt log in one INSERT per JSON list (lib/json-lists.ts: the 150 first
 * attempts of an invocation, each answer capped at 2 KB by deliver.ts RESPONSE_BODY_LIMIT, fit one
 * list); on the global database, the endpoints whose attempts all succeeded in one UPDATE, and one
 * UPDATE per endpoint that failed (its RETURNING says whether it paused it: `pauses[i]` belongs to
 * `global[pauseAt[i]]`). The sequential statements of deliver.ts (three or four per attempt) ran past
 * D1's 1,000 statements per invocation once a bulk chunk fanned out to 25 endpoints. `sent` is in the
 * order the attempts are to count in.
 */
export function recordAttemptsStatements(
  db: ShardDb,
  global: GlobalDb,
  sent: readonly SentAttempt[],
  now: Date,
): { shard: D1PreparedStatement[]; global: D1PreparedStatement[]; pauses: PauseCandidate[]; pauseAt: number[]; results: AttemptResult[] } {
  const at = now.toISOString();
  const gone = sent.flatMap((s) => (s.kind === "gone" ? [{ id: s.deliveryId, reason: s.reason }] : []));
  const answered = sent.flatMap((s) => (s.kind === "sent" ? [{ row: s.row, record: attemptRecord(s.row, s.outcome, now) }] : []));
  const shard = [...failGone(db, gone, at)];
  for (const list of jsonLists(answered.map(({ row, record }) => attemptEntry(row, record)))) {
    // the delivery rows (guarded per row as the sequential UPDATE was) and the attempt log, logged whether
    // or not that guard took, as the sequential INSERT was (repository.ts deliveriesAttemptedUpdate)
    shard.push(deliveriesAttemptedUpdate(db, at, list), attemptsLogInsert(db, at, list));
  }
  const health = endpointsHealth(global, answered, now);
  return { shard, ...health, results: answered.map(({ record }) => attemptResultOf(record)) };
}

/**
 * Records attempts (recordAttemptsStatements): the shard's batch first (with `extraShard`, e.g. claims
 * released), the truth of the deliveries; then the endpoints' health on the global database; then, for
 * each endpoint that global UPDATE just paused, its `webhook.endpoint_paused` event on the organization's
 * current shard (docs/decisions/shards.md 4: global first; a crash before the event loses only that
 * notice, the endpoint shows paused). `ctx.db` is the deliveries' shard.
 */
export async function recordAttempts(
  ctx: RequestContext,
  sent: readonly SentAttempt[],
  now: Date,
  extraShard: readonly D1PreparedStatement[] = [],
): Promise<AttemptResult[]> {
  const recorded = recordAttemptsStatements(ctx.db, ctx.global, sent, now);
  const shardStatements = [...recorded.shard, ...extraShard];
  if (shardStatements.length > 0) await ctx.db.batch(shardStatements);
  if (recorded.global.length === 0) return recorded.results;
  const results = await ctx.global.batch<{ paused_at: string | null }>(recorded.global);
  const at = now.toISOString();
  const paused = recorded.pauses.filter((_, i) => results[recorded.pauseAt[i]!]?.results[0]?.paused_at === at);
  for (const pause of paused) await insertPausedEvent(ctx, pause, now);
  return recorded.results;
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
function failGone(db: ShardDb, gone: { id: string; reason: string }[], at: string): D1PreparedStatement[] {
  return jsonLists(gone).map((list) => goneDeliveriesFail(db, at, list));
}

/**
 * Endpoint health after many attempts, folded per endpoint in the attempts' order so the end state is
 * the one a statement per attempt would leave: the last success clears the failure run, the
 * failures after it extend the run (added to the stored count, so attempts recorded meanwhile by
 * another invocation still count). The pause rule is applied to the run as it stands after the
 * attempts (an endpoint that answered one of them is alive: its run restarts now and cannot pause); an
 * UPDATE that may pause comes with its pause candidate, whose event is written only if it did.
 */
function endpointsHealth(
  db: GlobalDb,
  answered: { row: LoadedDelivery; record: AttemptRecord }[],
  now: Date,
): { global: D1PreparedStatement[]; pauses: PauseCandidate[]; pauseAt: number[] } {
  const at = now.toISOString();
  const byEndpoint = new Map<string, { row: LoadedDelivery; recovered: boolean; failuresSince: number }>();
  for (const { row, record } of answered) {
    const health = byEndpoint.get(row.endpoint_id) ?? { row, recovered: false, failuresSince: 0 };
    if (record.succeeded) Object.assign(health, { recovered: true, failuresSince: 0 });
    else health.failuresSince += 1;
    byEndpoint.set(row.endpoint_id, health);
  }
  // only endpoints that were failing when their deliveries were loaded: a success to a healthy endpoint
  // (the usual attempt) writes nothing to the global database. (A failure another invocation records
  // meanwhile is then cleared by the endpoint's next success instead of this one.)
  const healthy = [...byEndpoint.values()].filter((h) => h.failuresSince === 0 && (h.row.consecutive_failures ?? 0) > 0).map((h) => h.row.endpoint_id);
  const statements: D1PreparedStatement[] = [];
  const pauses: PauseCandidate[] = [];
  const pauseAt: number[] = [];
  if (healthy.length > 0) statements.push(endpointsRecoveredUpdate(db, healthy));
  for (const { row, recovered, failuresSince } of byEndpoint.values()) {
    if (failuresSince === 0) continue;
    const failures = (recovered ? 0 : (row.consecutive_failures ?? 0)) + failuresSince;
    const since = recovered ? at : (row.failing_since ?? at);
    const pause = pauseDue(failures, since, now);
    if (pause) {
      pauses.push({ row, failingSince: since, failures });
      pauseAt.push(statements.length);
    }
    statements.push(endpointFailuresUpdate(db, { endpointId: row.endpoint_id, recovered, failures: failuresSince, pause, at }));
  }
  return { global: statements, pauses, pauseAt };
}

/** `webhook.endpoint_paused`, on the organization's current shard, after the global UPDATE that paused the endpoint. */
async function insertPausedEvent(ctx: RequestContext, pause: PauseCandidate, now: Date): Promise<void> {
  const at = now.toISOString();
  const { row } = pause;
  const data = { endpoint_id: row.endpoint_id, url: row.url, failing_since: pause.failingSince, consecutive_failures: pause.failures, paused_at: at };
  const shard = await currentShardOf(ctx.global, row.org_id);
  const db = shardDb(ctx.env, shard) ?? shardDb(ctx.env, 1)!;
  const n = shardDb(ctx.env, shard) ? shard : 1;
  try {
    await outboxInsert(db, { orgId: row.org_id, envelopeId: null, shard: n, type: "webhook.endpoint_paused", data, at }).statement.run();
  } catch (err) {
    // the endpoint is paused (global); only the notice is lost, as after a crash here
    console.error("webhook.endpoint_paused event not written", row.endpoint_id, err);
  }
}
