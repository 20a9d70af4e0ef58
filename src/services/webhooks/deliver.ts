import type { DeliveryStatus } from "../../db/schema";
import type { Env } from "../../env";
import { inGraceWindow, type DeliveryRow, type EndpointRow } from "./repository";
import { nextRetryAt } from "./retry-schedule";
import { signatureHeaders } from "./signing";
import { checkWebhookUrl, urlPolicyOf } from "./url-policy";
import { readCapped } from "../../lib/read-capped";
import type { RequestContext } from "../../lib/context";
import { newId } from "../../lib/ids";

/** The receiver's time budget (docs/webhooks.md): no answer within it fails the attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer the log keeps. */
export const RESPONSE_BODY_LIMIT = 2048;
export const USER_AGENT = "Service-Webhooks/1.0";
/**
 * A sender claims a due delivery by moving `next_attempt_at` this far ahead: longer than any attempt
 * can take, so the queue consumer and the cron sweep never send the same attempt twice, and a sender
 * that dies mid-attempt only delays the delivery until the sweep after the lease.
 */
export const CLAIM_LEASE_MS = 2 * 60_000;

/** `now` is the service's clock for scheduling (injectable so tests can walk the retry schedule). */
export type DeliverOptions = { now?: Date; timeoutMs?: number };

export type AttemptResult = {
  deliveryId: string;
  attempt: number;
  succeeded: boolean;
  status: DeliveryStatus;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  nextAttemptAt: string | null;
};

type EventFields = { id: string; org_id: string; type: string; envelope_id: string | null; data: string; created_at: string };

/** Spec 6.2: identical for every endpoint, retry and replay of the event. */
export function webhookPayload(event: EventFields) {
  return {
    event_type: event.type,
    event_id: event.id,
    org_id: event.org_id,
    envelope_id: event.envelope_id,
    timestamp: event.created_at,
    data: JSON.parse(event.data) as Record<string, unknown>,
  };
}

export const claimUntil = (now: Date) => new Date(now.getTime() + CLAIM_LEASE_MS).toISOString();

/**
 * Sends one delivery if it is due and nobody else holds it. The claim and the read of what to send
 * go in one batch (one round trip); the read only counts if the claim took. Returns null when nothing
 * was sent (not due, finished, claimed elsewhere, or its endpoint is gone).
 */
export async function deliverWebhook(ctx: RequestContext, input: { deliveryId: string } & DeliverOptions): Promise<AttemptResult | null> {
  const { env } = ctx;
  const { deliveryId, ...opts } = input;
  const now = opts.now ?? new Date();
  const [claim, loaded] = await env.DB.batch([
    env.DB.prepare("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? AND status = 'pending' AND next_attempt_at <= ?").bind(
      claimUntil(now),
      deliveryId,
      now.toISOString(),
    ),
    loadForAttempt(env.DB, deliveryId),
  ]);
  if (claim?.meta.changes !== 1) return null;
  return attemptLoaded(env, deliveryId, (loaded?.results[0] as LoadedDelivery | undefined) ?? null, { ...opts, now });
}

/** One HTTP attempt of a delivery the caller has already claimed. */
export async function attemptClaimed(ctx: RequestContext, input: { deliveryId: string } & DeliverOptions & { now: Date }): Promise<AttemptResult | null> {
  const { deliveryId, ...opts } = input;
  return attemptLoaded(ctx.env, deliveryId, await loadForAttempt(ctx.db, deliveryId).first<LoadedDelivery>(), opts);
}

export type LoadedDelivery = DeliveryRow &
  Pick<EndpointRow, "url" | "is_active" | "deleted_at" | "secret" | "previous_secret" | "grace_expires_at" | "consecutive_failures" | "failing_since" | "paused_at"> & {
    envelope_id: string | null;
    event_data: string;
    event_created_at: string;
  };

/**
 * The deliveries with what an attempt needs (LoadedDelivery); append the WHERE on `d`. Joined on the
 * organization too: a delivery can only ever reach its own organization's endpoint.
 */
export const SELECT_LOADED_DELIVERIES = `SELECT d.*, e.url, e.is_active, e.deleted_at, e.secret, e.previous_secret, e.grace_expires_at,
         e.consecutive_failures, e.failing_since, e.paused_at,
         ev.envelope_id, ev.data AS event_data, ev.created_at AS event_created_at
  FROM webhook_deliveries d
  JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.org_id = d.org_id
  JOIN events ev ON ev.id = d.event_id AND ev.org_id = d.org_id`;

const loadForAttempt = (db: D1Database, deliveryId: string) => db.prepare(`${SELECT_LOADED_DELIVERIES} WHERE d.id = ?`).bind(deliveryId);

/** The attempt itself, logged and scheduled in one batch. */
async function attemptLoaded(env: Env, deliveryId: string, row: LoadedDelivery | null, opts: DeliverOptions & { now: Date }): Promise<AttemptResult | null> {
  const { statements, result } = await attemptStatements(env, deliveryId, row, opts);
  if (statements.length > 0) await env.DB.batch(statements);
  return result;
}

/**
 * First attempts of deliveries the caller has claimed and loaded (fan-out.ts fanOutClaiming), sent
 * concurrently; what they gave (delivery rows, attempt log, endpoint health) is written in one batch
 * once every receiver has answered or timed out: one D1 round trip for all of them.
 */
export async function attemptAll(ctx: RequestContext, input: { rows: LoadedDelivery[] } & DeliverOptions & { now: Date }): Promise<AttemptResult[]> {
  const { rows, ...opts } = input;
  const attempts = await Promise.all(rows.map((row) => attemptStatements(ctx.env, row.id, row, opts)));
  const statements = attempts.flatMap((a) => a.statements);
  if (statements.length > 0) await ctx.db.batch(statements);
  return attempts.flatMap((a) => (a.result ? [a.result] : []));
}

type Attempt = { statements: D1PreparedStatement[]; result: AttemptResult | null };

/** Sends one attempt and returns the writes that record it (none for a paused endpoint). */
async function attemptStatements(env: Env, deliveryId: string, row: LoadedDelivery | null, opts: DeliverOptions & { now: Date }): Promise<Attempt> {
  const db = env.DB;
  const { now } = opts;
  if (!row || row.deleted_at || row.is_active !== 1) {
    // Normally failed already by the disable or delete; this covers a fan-out that raced it.
    const reason = !row ? "endpoint or event not found in the delivery's organization" : row.deleted_at ? "endpoint deleted" : "endpoint disabled";
    const fail = db
      .prepare("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = ?, updated_at = ? WHERE id = ? AND status = 'pending'")
      .bind(reason, now.toISOString(), deliveryId);
    return { statements: [fail], result: null };
  }

  // A paused endpoint is sent nothing: the delivery stays pending (due again once an admin resumes it).
  if (row.paused_at) return { statements: [], result: null };

  const body = JSON.stringify(
    webhookPayload({ id: row.event_id, org_id: row.org_id, type: row.event_type, envelope_id: row.envelope_id, data: row.event_data, created_at: row.event_created_at }),
  );
  const verdict = checkWebhookUrl(row.url, urlPolicyOf(env));
  const outcome = verdict.ok
    ? await post(verdict.url, body, await deliveryHeaders(row, body, now), opts.timeoutMs ?? DELIVERY_TIMEOUT_MS)
    : { responseStatus: null, responseBody: null, error: `URL not allowed: ${verdict.reason}`, durationMs: 0 };
  return recordStatements(db, row, outcome, now);
}

/** Spec 6.3 exactly, plus the Standard Webhooks headers (DESIGN.md 6). */
async function deliveryHeaders(row: LoadedDelivery, body: string, now: Date): Promise<Record<string, string>> {
  // The receiver checks this against its own clock, so it is the wall clock, never the injected one.
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    "Content-Type": "application/json",
    "User-Agent": USER_AGENT,
    "X-Service-Event": row.event_type,
    "X-Service-Delivery": row.id,
    "X-Service-Endpoint": row.endpoint_id,
    "webhook-id": row.event_id,
    "webhook-timestamp": String(timestamp),
    ...(await signatureHeaders({
      secret: row.secret,
      previousSecret: inGraceWindow(row, now) ? row.previous_secret : null,
      webhookId: row.event_id,
      timestamp,
      body,
    })),
  };
}

type Outcome = { responseStatus: number | null; responseBody: string | null; error: string | null; durationMs: number };

/** Redirects are answers, not instructions: a 3xx fails the attempt (spec 4.10). */
async function post(url: URL, body: string, headers: Record<string, string>, timeoutMs: number): Promise<Outcome> {
  const started = Date.now();
  try {
    const res = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
    const responseBody = await readCapped(res, RESPONSE_BODY_LIMIT);
    const error =
      res.status >= 200 && res.status < 300
        ? null
        : res.status >= 300 && res.status < 400
          ? `redirect not followed (${res.status} to ${(res.headers.get("location") ?? "no Location").slice(0, 200)})`
          : `HTTP ${res.status}`;
    return { responseStatus: res.status, responseBody, error, durationMs: Date.now() - started };
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    const error =
      name === "TimeoutError" || name === "AbortError"
        ? `timed out after ${timeoutMs} ms`
        : `network error: ${(err instanceof Error ? err.message : String(err)).slice(0, 200)}`;
    return { responseStatus: null, responseBody: null, error, durationMs: Date.now() - started };
  }
}


function recordStatements(db: D1Database, row: LoadedDelivery, outcome: Outcome, now: Date): Attempt {
  const attempt = row.attempts + 1;
  const succeeded = outcome.responseStatus !== null && outcome.responseStatus >= 200 && outcome.responseStatus < 300;
  const next = succeeded ? null : nextRetryAt(attempt, row.max_attempts, now);
  const status: DeliveryStatus = succeeded ? "succeeded" : next ? "pending" : "failed";
  const at = now.toISOString();
  const nextAt = next?.toISOString() ?? null;
  const durationMs = Math.round(outcome.durationMs);
  const statements = [
    // Guarded on the state read: if the endpoint was disabled meanwhile the delivery stays failed.
    db
      .prepare(
        `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_attempt_at = ?, response_status = ?,
           response_body = ?, duration_ms = ?, last_error = ?, updated_at = ?
         WHERE id = ? AND status = 'pending' AND attempts = ?`,
      )
      .bind(status, attempt, nextAt, at, outcome.responseStatus, outcome.responseBody, durationMs, outcome.error, at, row.id, row.attempts),
    db
      .prepare(
        `INSERT INTO webhook_attempts (delivery_id, org_id, attempt, attempted_at, succeeded, response_status, response_body, error, duration_ms, next_attempt_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(row.id, row.org_id, attempt, at, succeeded ? 1 : 0, outcome.responseStatus, outcome.responseBody, outcome.error, durationMs, nextAt),
    ...endpointHealth(db, row, succeeded, now),
  ];
  return { statements, result: { deliveryId: row.id, attempt, succeeded, status, responseStatus: outcome.responseStatus, error: outcome.error, durationMs, nextAttemptAt: nextAt } };
}

/** Failures in a row after which the sweep sends the endpoint one probe a round instead of its whole backlog. */
export const BACKOFF_AFTER_FAILURES = 5;
/**
 * An endpoint that has failed every attempt for this long (and at least PAUSE_MIN_FAILURES times) is
 * paused, as Svix disables one after 5 days and Stripe after several days of failures: nothing more
 * is sent, its deliveries wait as `pending`, a `webhook.endpoint_paused` event says so, and the
 * endpoint shows `state: "paused"` until an admin resumes it (PATCH with `is_active: true` or a new url).
 */
export const PAUSE_AFTER_MS = 3 * 24 * 3_600_000;
export const PAUSE_MIN_FAILURES = 20;

/**
 * The endpoint's health after one attempt, in the attempt's own batch: a success clears the failure
 * run; a failure extends it, and the failure that makes the run PAUSE_AFTER_MS long pauses the
 * endpoint and publishes `webhook.endpoint_paused` (the event only if this attempt's UPDATE paused it).
 */
function endpointHealth(db: D1Database, row: LoadedDelivery, succeeded: boolean, now: Date): D1PreparedStatement[] {
  const at = now.toISOString();
  if (succeeded) {
    return [db.prepare("UPDATE webhook_endpoints SET consecutive_failures = 0, failing_since = NULL WHERE id = ? AND consecutive_failures > 0").bind(row.endpoint_id)];
  }
  const failures = (row.consecutive_failures ?? 0) + 1;
  const since = row.failing_since ?? at;
  const pause = failures >= PAUSE_MIN_FAILURES && now.getTime() - Date.parse(since) >= PAUSE_AFTER_MS;
  const statements = [
    db
      .prepare(
        `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1, failing_since = COALESCE(failing_since, ?),
           paused_at = CASE WHEN ? = 1 AND paused_at IS NULL THEN ? ELSE paused_at END
         WHERE id = ?`,
      )
      .bind(at, pause ? 1 : 0, at, row.endpoint_id),
  ];
  if (pause) {
    const data = { endpoint_id: row.endpoint_id, url: row.url, failing_since: since, consecutive_failures: failures, paused_at: at };
    statements.push(
      db
        .prepare(
          `INSERT INTO events (id, org_id, envelope_id, type, data, created_at)
           SELECT ?, ?, NULL, 'webhook.endpoint_paused', ?, ? WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ? AND paused_at = ?)`,
        )
        .bind(newId("event"), row.org_id, JSON.stringify(data), at, row.endpoint_id, at),
    );
  }
  return statements;
}
