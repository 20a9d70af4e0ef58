import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const KBA_CHECK_STATUSES = ["required", "passed", "failed", "unavailable"] as const;
export type KbaCheckStatus = (typeof KBA_CHECK_STATUSES)[number];
export const KBA_OUTCOMES = ["passed", "failed", "unavailable"] as const;
export type KbaOutcome = (typeof KBA_OUTCOMES)[number];

/** Attempts a challenged signer gets (docs/decisions/sign-and-pay.md): a fresh question set each. */
export const KBA_MAX_ATTEMPTS = 2;

/**
 * Question sets a signer can be given in any rolling day (src/services/kba/daily-cap.ts). A set that
 * lapses unanswered uses an attempt, so the attempt limit already bounds a signer's sets; the cap
 * holds the same bound in SQL should a check ever be started over.
 */
export const KBA_SETS_PER_DAY = KBA_MAX_ATTEMPTS;

/**
 * One row per challenged signer, written with the send: its presence is what makes the signer API
 * refuse the document until `passed`. Signers of the sending organization (a sender added as a
 * signer) get no row and are never challenged. `attempts_used` counts scored question sets; the
 * CHECK keeps it within the allowed attempts whatever a racing request does.
 */
export const kbaChecks = sqliteTable(
  "kba_checks",
  {
    signerId: text("signer_id").primaryKey(),
    envelopeId: text("envelope_id").notNull(),
    orgId: text("org_id").notNull(),
    /** provider name chosen at send (KBA_PROVIDER), e.g. `sandbox` */
    provider: text("provider").notNull(),
    status: text("status", { enum: KBA_CHECK_STATUSES }).notNull().default("required"),
    attemptsUsed: integer("attempts_used").notNull().default(0),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("kba_checks_envelope_idx").on(t.envelopeId), check("kba_checks_attempts_ck", sql`attempts_used BETWEEN 0 AND 2`)],
);

/**
 * A question set handed to a signer. The questions themselves are never stored: the provider holds
 * them (the sandbox derives them from its session id). At most one open session per signer (partial
 * unique index); a session is answered once (`scored`, guarded in SQL) or lapses (`expired`, which
 * uses its attempt like wrong answers: outcome `failed`).
 */
export const kbaSessions = sqliteTable(
  "kba_sessions",
  {
    id: text("id").primaryKey(),
    signerId: text("signer_id").notNull(),
    envelopeId: text("envelope_id").notNull(),
    orgId: text("org_id").notNull(),
    provider: text("provider").notNull(),
    providerSessionId: text("provider_session_id").notNull(),
    /** which attempt this question set is (1 or 2) */
    attempt: integer("attempt").notNull(),
    status: text("status", { enum: ["open", "scored", "expired"] }).notNull().default("open"),
    /** `passed` or `failed` once scored; the answers are never kept */
    outcome: text("outcome"),
    expiresAt: text("expires_at").notNull(),
    createdAt: text("created_at").notNull(),
    scoredAt: text("scored_at"),
  },
  (t) => [
    uniqueIndex("kba_sessions_open_uq").on(t.signerId).where(sql`status = 'open'`),
    // the daily cap counts a signer's sets by start time
    index("kba_sessions_signer_created_idx").on(t.signerId, t.createdAt),
    // a signer's attempt is scored once: a replayed or racing answer fails the whole batch
    uniqueIndex("kba_sessions_scored_attempt_uq").on(t.signerId, t.attempt).where(sql`status = 'scored'`),
    check("kba_sessions_attempt_ck", sql`attempt BETWEEN 1 AND 2`),
  ],
);

/**
 * The KBA result of spec part 2: one final outcome per challenged signer (`passed`, `failed` after the
 * allowed attempts, or `unavailable`). Listed by GET /envelopes/:id/kba and the certificate's
 * identity_verification block.
 */
export const kbaResults = sqliteTable(
  "kba_results",
  {
    id: text("id").primaryKey(),
    signerId: text("signer_id").notNull(),
    envelopeId: text("envelope_id").notNull(),
    orgId: text("org_id").notNull(),
    signerEmail: text("signer_email").notNull(),
    status: text("status", { enum: KBA_OUTCOMES }).notNull(),
    provider: text("provider").notNull(),
    providerSessionId: text("provider_session_id").notNull(),
    ipAddress: text("ip_address"),
    priceCents: integer("price_cents").notNull(),
    attempts: integer("attempts").notNull(),
    occurredAt: text("occurred_at").notNull(),
  },
  (t) => [uniqueIndex("kba_results_signer_uq").on(t.signerId), index("kba_results_envelope_idx").on(t.envelopeId)],
);

/**
 * Usage lines for billing, per organization and month (`YYYY-MM`, UTC): verified signers (KBA passed)
 * and e-sign envelopes (every envelope, once). `unique_key` names what is billed
 * (`kba_verification:<signer>:<provider session>`, `esign_envelope:<envelope>`)
 * so a retried or replayed request can never bill the same thing twice.
 */
export const usageLines = sqliteTable(
  "usage_lines",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    month: text("month").notNull(),
    kind: text("kind").notNull(),
    quantity: integer("quantity").notNull().default(1),
    unitCents: integer("unit_cents").notNull(),
    envelopeId: text("envelope_id"),
    signerId: text("signer_id"),
    description: text("description").notNull(),
    uniqueKey: text("unique_key").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("usage_lines_unique_key_uq").on(t.uniqueKey), index("usage_lines_org_month_idx").on(t.orgId, t.month)],
);
