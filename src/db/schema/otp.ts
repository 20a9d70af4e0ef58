import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Wrong codes a signer may enter against one code before it is spent (a new code starts over). */
export const OTP_MAX_ATTEMPTS = 5;
/** How long a code can be entered. */
export const OTP_CODE_TTL_SECONDS = 600;
/** One code a minute, five a rolling day, per signer. */
export const OTP_SEND_INTERVAL_SECONDS = 60;
export const OTP_SENDS_PER_DAY = 5;

/**
 * One row per signer sent with `auth: "sms_otp"` (docs/decisions/sms-otp.md), written with the send: its
 * presence is what makes the signer API refuse the document until `verified_at` is set. Holds the
 * current code as an HMAC (keyed by a service secret and bound to the signer), never the code itself.
 */
export const signerOtps = sqliteTable(
  "signer_otps",
  {
    signerId: text("signer_id").primaryKey(),
    envelopeId: text("envelope_id").notNull(),
    orgId: text("org_id").notNull(),
    /** "hmac-sha256:" + hex, of the code now valid; null before the first send and once verified or spent */
    codeHash: text("code_hash"),
    codeExpiresAt: text("code_expires_at"),
    /** wrong codes entered against the current code */
    attemptsUsed: integer("attempts_used").notNull().default(0),
    lastSentAt: text("last_sent_at"),
    verifiedAt: text("verified_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("signer_otps_envelope_idx").on(t.envelopeId), check("signer_otps_attempts_ck", sql`attempts_used BETWEEN 0 AND 5`)],
);

/**
 * Every code sent, one row per text message: the daily limit counts them, and it is the SMS outbox
 * (GET /dev/sms in development). `body_sealed` holds the message only for the `outbox` provider,
 * sealed under EMBED_TOKEN_SECRET so the database never holds a readable code.
 */
export const smsOutbox = sqliteTable(
  "sms_outbox",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    envelopeId: text("envelope_id").notNull(),
    signerId: text("signer_id").notNull(),
    /** the number as masked on the audit (+1******4567) */
    toMasked: text("to_masked").notNull(),
    provider: text("provider").notNull(),
    status: text("status", { enum: ["queued", "sent", "failed"] }).notNull(),
    providerMessageId: text("provider_message_id"),
    error: text("error"),
    bodySealed: text("body_sealed"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("sms_outbox_signer_created_idx").on(t.signerId, t.createdAt), index("sms_outbox_created_idx").on(t.createdAt)],
);
