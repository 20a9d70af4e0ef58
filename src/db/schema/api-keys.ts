import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./organizations";

/** Raw keys are never stored: only their SHA-256 (hex) and a short display prefix. */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    name: text("name"),
    keyHash: text("key_hash").notNull().unique(),
    keyPrefix: text("key_prefix").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    rateLimitRpm: integer("rate_limit_rpm").notNull().default(60),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    lastUsedAt: text("last_used_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("api_keys_org_idx").on(t.orgId)],
);

/** Stripe-style Idempotency-Key records for partner POSTs, kept 24 h. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    keyId: text("key_id").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    orgId: text("org_id").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: ["in_progress", "done"] }).notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.idempotencyKey] }), index("idempotency_created_idx").on(t.createdAt)],
);

/**
 * On the shard a keyed create commits to, in the create's own batch: which record answered that request
 * (`ref`: the SHA-256 of the API key id, the Idempotency-Key and the request's fingerprint). A retry after
 * an answer that could not tell whether the commit landed (a D1 timeout: 503, which releases the key) meets
 * this row and answers the record it names instead of creating a second one (docs/decisions/idempotency-keys.md).
 * Kept 24 h, as the key's own record.
 */
export const idempotentCreates = sqliteTable(
  "idempotent_creates",
  {
    orgId: text("org_id").notNull(),
    ref: text("ref").notNull(),
    recordId: text("record_id").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.ref] }), index("idempotent_creates_created_idx").on(t.createdAt)],
);
