import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const EMAIL_STATUSES = ["queued", "sent", "failed"] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

export const EMAIL_KINDS = ["invitation", "reminder", "expiry_warning", "completed_copy"] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

/**
 * Email outbox: every email the service sends is first a row here, written in the same D1 batch as
 * the change that causes it (a send writes its first signers' invitations), then handed to the
 * configured EmailTransport (src/providers/email). The default transport leaves rows `queued`; the
 * dev-only page GET /dev/emails lists them. A row holds no usable signing link: the email is stored
 * with its link withheld and the link sealed beside it until delivery. The unique (signer, kind) index makes queueing a
 * signer's invitation idempotent, so the signing flow may ask for the next invitations repeatedly.
 *
 * Retries (src/jobs/retry-emails.ts): `attempts` counts the transport's tries, `next_attempt_at` is
 * when the cron may try a `failed` row again (NULL: never, after a permanent refusal or the last
 * attempt). The cron claims a row by moving `next_attempt_at` ahead before delivering it.
 */
export const emailOutbox = sqliteTable(
  "email_outbox",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull(),
    envelopeId: text("envelope_id"),
    signerId: text("signer_id"),
    kind: text("kind", { enum: EMAIL_KINDS }).notNull(),
    toEmail: text("to_email").notNull(),
    toName: text("to_name").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html").notNull(),
    /**
     * the email's call to action (a signer's signing link) with its credential withheld (`…/s/[slug]`),
     * as `text` and `html` show it too; rows written before links were sealed hold it in the clear
     */
    linkUrl: text("link_url"),
    /**
     * the link itself, AES-GCM-sealed under a key derived from EMBED_TOKEN_SECRET and bound to the row's
     * id; opened only to deliver the email (or on the dev page), NULL once it is delivered or never will
     * be (src/services/email/link-at-rest.ts, docs/decisions/email-links-at-rest.md)
     */
    linkSealed: text("link_sealed"),
    status: text("status", { enum: EMAIL_STATUSES }).notNull().default("queued"),
    createdAt: text("created_at").notNull(),
    sentAt: text("sent_at"),
    error: text("error"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: text("next_attempt_at"),
  },
  (t) => [
    uniqueIndex("email_outbox_signer_kind_uq").on(t.signerId, t.kind),
    index("email_outbox_created_idx").on(t.createdAt),
    index("email_outbox_envelope_idx").on(t.envelopeId),
    index("email_outbox_status_next_idx").on(t.status, t.nextAttemptAt),
  ],
);
