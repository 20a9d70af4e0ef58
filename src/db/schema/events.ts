import { index, sqliteTable, text, uniqueIndex, integer } from "drizzle-orm/sqlite-core";

/**
 * Transactional outbox: every state change writes its event here in the same D1 batch.
 * `dispatched_at` is set once the event has been handed to the webhook queue and fanned out.
 */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    envelopeId: text("envelope_id"),
    type: text("type").notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: text("created_at").notNull(),
    dispatchedAt: text("dispatched_at"),
  },
  (t) => [
    index("events_undispatched_idx").on(t.dispatchedAt, t.createdAt),
    index("events_org_idx").on(t.orgId, t.createdAt),
  ],
);

/**
 * Append-only, hash-chained audit log. One chain per envelope (chain_id = envelope id) and one per
 * organization for org-level actions (chain_id = org id). `hash` = SHA-256 over the previous entry's
 * hash and this entry's canonical content, so an edited or deleted row breaks every later link.
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    chainId: text("chain_id").notNull(),
    seq: integer("seq").notNull(),
    action: text("action").notNull(),
    actorType: text("actor_type", { enum: ["api_key", "user", "operator", "system", "signer"] }).notNull(),
    actorId: text("actor_id"),
    ip: text("ip"),
    userAgent: text("user_agent"),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: text("created_at").notNull(),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [uniqueIndex("audit_chain_seq_uq").on(t.chainId, t.seq)],
);
