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
  /** the reminder defaults of the organization's envelopes (DESIGN.md 12); null: no reminders unless the envelope asks */
  reminderAfterDays: integer("reminder_after_days"),
  reminderEveryDays: integer("reminder_every_days"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

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
