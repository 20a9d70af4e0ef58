import type { DeliveryStatus } from "../../db/schema";
import { notFound, unprocessable } from "../../lib/errors";

export type EndpointRow = {
  id: string;
  org_id: string;
  url: string;
  description: string;
  events: string;
  is_active: number;
  secret: string | null;
  previous_secret: string | null;
  grace_expires_at: string | null;
  legacy: number;
  consecutive_failures: number;
  failing_since: string | null;
  paused_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

export type DeliveryRow = {
  id: string;
  org_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  max_attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number | null;
  last_error: string | null;
  redelivery_of: string | null;
  created_at: string;
  updated_at: string;
};

/** A live (not soft-deleted) endpoint of the organization; anything else is 404, never a leak. */
export async function getEndpoint(db: D1Database, orgId: string, endpointId: string, opts: { includeDeleted?: boolean } = {}) {
  const row = await db
    .prepare(`SELECT * FROM webhook_endpoints WHERE id = ? AND org_id = ?${opts.includeDeleted ? "" : " AND deleted_at IS NULL"}`)
    .bind(endpointId, orgId)
    .first<EndpointRow>();
  if (!row) throw notFound("Webhook endpoint");
  return row;
}

export async function getDelivery(db: D1Database, orgId: string, deliveryId: string) {
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
 * sweep never picks them up again. Goes in the batch that disables or deletes the endpoint.
 */
export function failInFlight(db: D1Database, endpointId: string, reason: string, at: string): D1PreparedStatement {
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
