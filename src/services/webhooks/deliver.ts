import type { DeliveryStatus } from "../../db/schema";
import type { Env } from "../../env";
import type { EventRow } from "../events/repository";
import { deliveriesClaim, deliveriesWithEventSelect, deliveryClaim, deliveryWithEventSelect, endpointTargets, inGraceWindow, loadedWith, releaseClaimsUpdate, type DeliveryWithEvent, type LoadedDelivery } from "./repository";
import { recordAttempts } from "./record-attempts";
import type { ShardDb } from "../../lib/shards";
import { signatureHeaders } from "./signing";
import { checkWebhookUrl, deliveryUrlPolicyOf } from "./url-policy";
import { forEachConcurrently } from "../../lib/concurrency";
import { readCapped } from "../../lib/read-capped";
import type { RequestContext } from "../../lib/context";

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

type EventFields = Pick<EventRow, "id" | "org_id" | "type" | "envelope_id" | "data" | "created_at">;

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
 * Sends one delivery if it is due and nobody else holds it. `ctx.db` is the delivery's shard. The
 * claim and the read of the delivery and its event go in one batch on the shard (one round trip; the
 * read only counts if the claim took), then the endpoint (url, secrets, state, health) is read by id
 * from the global database. Returns null when nothing was sent (not due, finished, claimed elsewhere,
 * or its endpoint is gone).
 */
export async function deliverWebhook(ctx: RequestContext, input: { deliveryId: string } & DeliverOptions): Promise<AttemptResult | null> {
  const { db } = ctx;
  const { deliveryId, ...opts } = input;
  const now = opts.now ?? new Date();
  const [claim, read] = await db.batch([
    deliveryClaim(db, { id: deliveryId, until: claimUntil(now), now: now.toISOString() }),
    deliveryWithEventSelect(db, deliveryId),
  ]);
  if (claim?.meta.changes !== 1) return null;
  return attemptLoaded(ctx, deliveryId, await withEndpoint(ctx, (read?.results[0] as DeliveryWithEvent | undefined) ?? null), { ...opts, now });
}

/**
 * deliverWebhook for many deliveries of one shard (`ctx.db`), the queue consumer's batch: one claim of all
 * of them (those due and unclaimed; RETURNING says which took) and the read of them with their events in
 * one batch, their endpoints in one read of the global database, the attempts ATTEMPT_LANES at a time and
 * their record in one batch (attemptAll). Four round trips for the batch instead of three per delivery.
 * Returns the attempts and the ids of those a slow receiver kept from starting in time (released, due
 * at once: the caller queues them).
 */
export async function deliverWebhooks(
  ctx: RequestContext,
  input: { deliveryIds: readonly string[] } & DeliverOptions,
): Promise<{ results: AttemptResult[]; released: string[] }> {
  const { db } = ctx;
  const { deliveryIds, ...opts } = input;
  const now = opts.now ?? new Date();
  const ids = [...new Set(deliveryIds)];
  if (ids.length === 0) return { results: [], released: [] };
  const [claim, read] = await db.batch([
    deliveriesClaim(db, { ids, until: claimUntil(now), now: now.toISOString() }),
    deliveriesWithEventSelect(db, ids),
  ]);
  const claimed = new Set(((claim?.results ?? []) as { id: string }[]).map((r) => r.id));
  const rows = ((read?.results ?? []) as DeliveryWithEvent[]).filter((r) => claimed.has(r.id));
  const endpoints = await endpointTargets(ctx.global, rows.map((r) => r.endpoint_id));
  // a delivery claimed whose event is gone, or whose endpoint is missing or another organization's: failed as gone
  const loaded = rows.map((r) => ({ id: r.id, row: loadedWith(r, endpoints.get(r.endpoint_id)) }));
  const read_ = new Set(rows.map((r) => r.id));
  const missing = [...claimed].filter((id) => !read_.has(id));
  return attemptAll(ctx, {
    rows: loaded.flatMap((l) => (l.row ? [l.row] : [])),
    gone: [...missing, ...loaded.flatMap((l) => (l.row ? [] : [l.id]))],
    ...opts,
    now,
  });
}

/** One HTTP attempt of a delivery (on `ctx.db`) the caller has already claimed. */
export async function attemptClaimed(ctx: RequestContext, input: { deliveryId: string } & DeliverOptions & { now: Date }): Promise<AttemptResult | null> {
  const { deliveryId, ...opts } = input;
  const row = await deliveryWithEventSelect(ctx.db, deliveryId).first<DeliveryWithEvent>();
  return attemptLoaded(ctx, deliveryId, await withEndpoint(ctx, row), opts);
}

/** The delivery with its endpoint's fields, read by id from the global database (null: either is missing). */
async function withEndpoint(ctx: RequestContext, row: DeliveryWithEvent | null): Promise<LoadedDelivery | null> {
  if (!row) return null;
  return loadedWith(row, (await endpointTargets(ctx.global, [row.endpoint_id])).get(row.endpoint_id));
}

/** The attempt itself, logged and scheduled (the writes of record-attempts.ts, as for many attempts). */
async function attemptLoaded(ctx: RequestContext, deliveryId: string, row: LoadedDelivery | null, opts: DeliverOptions & { now: Date }): Promise<AttemptResult | null> {
  const sent = await sendAttempt(ctx.env, deliveryId, row, opts);
  const results = await recordAttempts(ctx, [sent], opts.now);
  return results[0] ?? null;
}

/**
 * Attempts one call keeps in flight. A Worker invocation may hold six connections waiting for answers
 * (the runtime queues the rest); local workerd enforces no limit, and a bulk chunk's 150 concurrent
 * first attempts per publish opened a socket each, ~5,400 in a few seconds for 1,000 clients, while
 * the service stopped answering other requests (docs/decisions/webhook-attempt-concurrency.md).
 */
export const ATTEMPT_LANES = 6;
/**
 * No attempt starts later than this after the call began: the rest are released (due at once) for the
 * queue, so a slow receiver cannot keep claimed deliveries waiting past their lease (CLAIM_LEASE_MS)
 * or past the 30 s a response's `waitUntil` may run.
 */
export const ATTEMPT_START_BUDGET_MS = 20_000;

/**
 * First attempts of deliveries the caller has claimed and loaded (fan-out.ts fanOutClaiming, deliverWebhooks), ATTEMPT_LANES
 * at a time; what they gave (delivery rows, attempt log, endpoint health) and the release of those never
 * started are written once every started attempt has answered or timed out: one batch on the shard
 * and one on the global database (endpoint health) for all of them. `ctx.db` is the rows' shard. Returns the attempts and the ids of the released deliveries (to be queued).
 */
export async function attemptAll(
  ctx: RequestContext,
  input: { rows: LoadedDelivery[]; gone?: readonly string[] } & DeliverOptions & { now: Date; startBudgetMs?: number },
): Promise<{ results: AttemptResult[]; released: string[] }> {
  const { rows, gone = [], startBudgetMs = ATTEMPT_START_BUDGET_MS, ...opts } = input;
  const startBy = Date.now() + startBudgetMs;
  // claimed deliveries with no endpoint or event to send to: failed with the rest (sendAttempt's "gone")
  const attempts: SentAttempt[] = await Promise.all(gone.map((id) => sendAttempt(ctx.env, id, null, opts)));
  const released: LoadedDelivery[] = [];
  await forEachConcurrently(rows, ATTEMPT_LANES, async (row) => {
    if (Date.now() > startBy) released.push(row);
    else attempts.push(await sendAttempt(ctx.env, row.id, row, opts));
  });
  // a constant number of statements whatever the number of attempts (record-attempts.ts)
  const results = await recordAttempts(ctx, attempts, opts.now, releaseClaims(ctx.db, released, opts.now));
  return { results, released: released.map((r) => r.id) };
}

/** Claimed deliveries handed back unattempted: due at once, so the queue (or the sweep) sends them. */
function releaseClaims(db: ShardDb, rows: LoadedDelivery[], now: Date): D1PreparedStatement[] {
  if (rows.length === 0) return [];
  return [releaseClaimsUpdate(db, rows.map((r) => r.id), now.toISOString())];
}

/** What one attempt came to, before anything is written: its endpoint gone or paused, or the receiver's answer. */
export type SentAttempt = { kind: "gone"; deliveryId: string; reason: string } | { kind: "paused" } | { kind: "sent"; row: LoadedDelivery; outcome: Outcome };

/** Sends one attempt of a claimed, loaded delivery, unless its endpoint is gone or paused. Writes nothing. */
async function sendAttempt(env: Env, deliveryId: string, row: LoadedDelivery | null, opts: DeliverOptions & { now: Date }): Promise<SentAttempt> {
  const { now } = opts;
  if (!row || row.deleted_at || row.is_active !== 1) {
    // Normally failed already by the disable or delete; this covers a fan-out that raced it.
    const reason = !row ? "endpoint or event not found in the delivery's organization" : row.deleted_at ? "endpoint deleted" : "endpoint disabled";
    return { kind: "gone", deliveryId, reason };
  }

  // A paused endpoint is sent nothing: the delivery stays pending (due again once an admin resumes it).
  if (row.paused_at) return { kind: "paused" };

  const body = JSON.stringify(
    webhookPayload({ id: row.event_id, org_id: row.org_id, type: row.event_type, envelope_id: row.envelope_id, data: row.event_data, created_at: row.event_created_at }),
  );
  const verdict = checkWebhookUrl(row.url, deliveryUrlPolicyOf(env));
  const outcome = verdict.ok
    ? await post(verdict.url, body, await deliveryHeaders(row, body, now), opts.timeoutMs ?? DELIVERY_TIMEOUT_MS)
    : { responseStatus: null, responseBody: null, error: `URL not allowed: ${verdict.reason}`, durationMs: 0 };
  return { kind: "sent", row, outcome };
}

/** Spec 6.3 exactly, plus the Standard Webhooks headers (docs/webhooks.md). */
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

export type Outcome = { responseStatus: number | null; responseBody: string | null; error: string | null; durationMs: number };

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

/** Failures in a row after which the sweep sends the endpoint one probe a round instead of its whole backlog. */
export const BACKOFF_AFTER_FAILURES = 5;
