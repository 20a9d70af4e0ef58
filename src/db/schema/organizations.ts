import { LOCALES } from "./locales";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const organizations = sqliteTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  stripeAccountId: text("stripe_account_id"),
  platformFeeBps: integer("platform_fee_bps").notNull().default(0),
  /** origins allowed to frame the signing page and widgets (CSP frame-ancestors), JSON array; null: none */
  embedFrameAncestors: text("embed_frame_ancestors", { mode: "json" }).$type<string[]>(),
  /**
   * The organization's audit chain (chain_id = org id) as its newest entry left it: its length and that
   * entry's hash, advanced in the batch of every entry, so deleting the newest entries is detected.
   */
  auditSeq: integer("audit_seq").notNull().default(0),
  auditHeadHash: text("audit_head_hash").notNull().default("0".repeat(64)),
  /** the reminder defaults of the organization's envelopes (docs/consumer-signing.md); null: no reminders unless the envelope asks */
  reminderAfterDays: integer("reminder_after_days"),
  reminderEveryDays: integer("reminder_every_days"),
  /** the shard its new envelopes, customers and batches go to (docs/decisions/shards.md); older shards stay in `org_shards` */
  currentShardId: integer("current_shard_id").notNull().default(1),
  /**
   * Retention of closed vault records (docs/control.md "Retention"): a record this organization closes (paid off,
   * papered out) is kept this many years after closing; with `auto_destroy` the cron destroys the records it
   * controls once their `retain_until` passes (never one under a legal hold).
   */
  retainYearsAfterClose: integer("retain_years_after_close").notNull().default(7),
  autoDestroy: integer("auto_destroy", { mode: "boolean" }).notNull().default(false),
  retentionUpdatedAt: text("retention_updated_at"),
  /** the language of its envelopes that name none (docs/decisions/signing-page-languages.md) */
  defaultLocale: text("default_locale", { enum: LOCALES }).notNull().default("en"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/** The shard registry (docs/decisions/shards.md): `open` shards take new organizations and moves, `closed` ones are still read and swept. */
export const shards = sqliteTable("shards", {
  id: integer("id").primaryKey(),
  state: text("state", { enum: ["open", "closed"] }).notNull(),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/**
 * An organization's shard set: every shard it was placed on (`placed`) and every shard holding a vault
 * record it holds a role in or was offered (`vault`). Org-wide lists fan out over it.
 */
export const orgShards = sqliteTable(
  "org_shards",
  {
    orgId: text("org_id").notNull(),
    shardId: integer("shard_id").notNull(),
    reason: text("reason", { enum: ["placed", "vault"] }).notNull(),
    firstAt: text("first_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.shardId] })],
);

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name").notNull(),
  createdAt: text("created_at").notNull(),
});

export const memberships = sqliteTable(
  "memberships",
  {
    userId: text("user_id").notNull().references(() => users.id),
    orgId: text("org_id").notNull().references(() => organizations.id),
    role: text("role", { enum: ["admin", "custodian", "member"] }).notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.orgId] })],
);
