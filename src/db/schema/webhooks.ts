import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { events } from "./events";
import { organizations } from "./organizations";

/**
 * Webhooks follow the Standard Webhooks three-part model: the immutable event (`events`), one
 * delivery per endpoint and event (status, attempts, next attempt), and one row per HTTP attempt.
 */

/**
 * An organization's endpoint. Soft-deleted (`deleted_at`) so the delivery log outlives it. The secret
 * is kept in the clear because every delivery is signed with it; `secret` NULL means the endpoint
 * delivers unsigned (migrated from the legacy per-key webhook). During a rotation `previous_secret`
 * signs too, until `grace_expires_at`.
 */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    secret: text("secret"),
    previousSecret: text("previous_secret"),
    graceExpiresAt: text("grace_expires_at"),
    /** the endpoint `PATCH /partner/webhook` writes through to (at most one live per organization) */
    legacy: integer("legacy", { mode: "boolean" }).notNull().default(false),
    /** attempts failed in a row (0 after any success): past a few, the sweep sends the endpoint one probe a round */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /** the first failure of the current run of failures; null while the endpoint answers */
    failingSince: text("failing_since"),
    /** set when the endpoint failed without a success for PAUSE_AFTER_MS: nothing is sent until an admin resumes it */
    pausedAt: text("paused_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (t) => [
    index("webhook_endpoints_org_idx").on(t.orgId, t.deletedAt),
    uniqueIndex("webhook_endpoints_legacy_uq").on(t.orgId).where(sql`legacy = 1 AND deleted_at IS NULL`),
  ],
);

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event for one endpoint. `next_attempt_at` is when the sweep may send it next (NULL once it has
 * succeeded or failed for good); a sender claims a due row by pushing `next_attempt_at` a lease ahead,
 * so the queue consumer and the cron sweep never send the same attempt twice. A replay is a new row
 * with `redelivery_of` set; the unique index makes fan-out of one event to one endpoint idempotent.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    endpointId: text("endpoint_id").notNull().references(() => webhookEndpoints.id),
    eventId: text("event_id").notNull().references(() => events.id),
    eventType: text("event_type").notNull(),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    nextAttemptAt: text("next_attempt_at"),
    lastAttemptAt: text("last_attempt_at"),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    durationMs: integer("duration_ms"),
    lastError: text("last_error"),
    redeliveryOf: text("redelivery_of"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_fanout_uq").on(t.endpointId, t.eventId).where(sql`redelivery_of IS NULL`),
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt),
  ],
);

/** Every HTTP attempt of a delivery, kept for the log; the delivery row mirrors the latest one. */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    deliveryId: text("delivery_id").notNull().references(() => webhookDeliveries.id),
    orgId: text("org_id").notNull(),
    attempt: integer("attempt").notNull(),
    attemptedAt: text("attempted_at").notNull(),
    succeeded: integer("succeeded", { mode: "boolean" }).notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    nextAttemptAt: text("next_attempt_at"),
  },
  (t) => [
    index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt),
    // the minute prune reads only rows past retention, not the whole log
    index("webhook_attempts_attempted_idx").on(t.attemptedAt),
  ],
);
