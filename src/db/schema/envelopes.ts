import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { customers } from "./customers";
import { organizations } from "./organizations";
import { LOCALES } from "./locales";

export const ENVELOPE_STATUSES = [
  "pending",
  "uploaded",
  "preparing",
  "sent",
  "viewed",
  "completed",
  "vaulted",
  "declined",
  "voided",
  "expired",
] as const;
export type EnvelopeStatus = (typeof ENVELOPE_STATUSES)[number];

export const DOCUMENT_SOURCES = ["template", "package", "new", "upload"] as const;
export type DocumentSource = (typeof DOCUMENT_SOURCES)[number];

export type SecuredParty = {
  name: string;
  role?: string;
  address?: string;
  email?: string;
  identifier?: string;
};

export const envelopes = sqliteTable(
  "envelopes",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    customerId: text("customer_id").notNull().references(() => customers.id),
    name: text("name").notNull(),
    status: text("status", { enum: ENVELOPE_STATUSES }).notNull(),
    documentSource: text("document_source", { enum: DOCUMENT_SOURCES }).notNull(),
    externalId: text("external_id"),
    templateId: text("template_id"),
    /** internal metadata; only a partner-safe subset is ever returned */
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    prefilledData: text("prefilled_data", { mode: "json" }).$type<Record<string, unknown>>(),
    securedParty: text("secured_party", { mode: "json" }).$type<SecuredParty>(),
    kbaRequired: integer("kba_required", { mode: "boolean" }).notNull().default(false),
    providerInstance: text("provider_instance").notNull().default("default"),
    expiresInDays: integer("expires_in_days").notNull().default(30),
    expiresAt: text("expires_at"),
    signedAt: text("signed_at"),
    voidedReason: text("voided_reason"),
    vaultedAt: text("vaulted_at"),
    /** set when a compliance certificate has been generated; `compliant` in responses */
    certificateIssuedAt: text("certificate_issued_at"),
    createdByKeyId: text("created_by_key_id"),
    /** sequence number of the newest audit entry: the optimistic lock of every transition */
    auditSeq: integer("audit_seq").notNull().default(0),
    /**
     * Reminders (docs/consumer-signing.md): the first after `reminder_after_days` days unsigned, then every
     * `reminder_every_days` (0: once); null: the organization's default. The cron records what it sent
     * (`reminders_sent`, `last_reminder_at`) and the expiry warning (`expiry_warned_at`) so it sends each once.
     */
    reminderAfterDays: integer("reminder_after_days"),
    reminderEveryDays: integer("reminder_every_days"),
    remindersSent: integer("reminders_sent").notNull().default(0),
    lastReminderAt: text("last_reminder_at"),
    expiryWarnedAt: text("expiry_warned_at"),
    /**
     * E-SIGN consent (docs/consumer-signing.md): whether its signers must consent to electronic records before the
     * document is shown, and the disclosure version they are shown (fixed at create)
     */
    consumerConsent: integer("consumer_consent", { mode: "boolean" }).notNull().default(false),
    disclosureId: text("disclosure_id"),
    /** the signer's language (docs/decisions/signing-page-languages.md): the signing page, its emails and the default disclosure */
    locale: text("locale", { enum: LOCALES }).notNull().default("en"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("envelopes_org_created_idx").on(t.orgId, t.createdAt),
    index("envelopes_org_customer_idx").on(t.orgId, t.customerId),
    index("envelopes_org_status_idx").on(t.orgId, t.status),
    index("envelopes_expiry_idx").on(t.status, t.expiresAt),
    // the reminder cron walks open envelopes by their next reminder's due time
    index("envelopes_reminder_idx").on(t.status, t.lastReminderAt),
    // the auto-vault sweep walks completed envelopes only (src/jobs/auto-vault-sweep.ts)
    index("envelopes_completed_idx").on(t.id).where(sql`status = 'completed'`),
  ],
);

export const signers = sqliteTable(
  "signers",
  {
    id: text("id").primaryKey(),
    envelopeId: text("envelope_id").notNull().references(() => envelopes.id),
    orgId: text("org_id").notNull(),
    role: text("role").notNull(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    routingOrder: integer("routing_order").notNull().default(1),
    status: text("status", { enum: ["pending", "viewed", "started", "completed", "declined"] })
      .notNull()
      .default("pending"),
    /**
     * "sha256:" + hex SHA-256 of the signer's permanent slug (128 bits from a CSPRNG, known only to the
     * invitation email); rows from before migration 0016 hold the raw slug until its first use
     */
    slugHash: text("slug_hash").notNull().unique(),
    viewedAt: text("viewed_at"),
    signedAt: text("signed_at"),
    createdAt: text("created_at").notNull(),
    /** corrections (docs/consumer-signing.md): the signer's phone, and when the last invitation was re-sent (one per 10 minutes) */
    phone: text("phone"),
    lastResentAt: text("last_resent_at"),
    /** when the signer consented to electronic records (docs/consumer-signing.md); cleared by a correction */
    consentGivenAt: text("consent_given_at"),
  },
  (t) => [index("signers_envelope_idx").on(t.envelopeId)],
);

/**
 * An organization's E-SIGN disclosure (docs/consumer-signing.md), one row per saved version: never edited, a PUT
 * adds the next version. `sha256` is the hash of the version's canonical JSON, named on each consent's
 * audit entry. No row: the shipped default applies.
 */
export const esignDisclosures = sqliteTable(
  "esign_disclosures",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    /** one series of versions per language: the signer is shown the one of the envelope's `locale` */
    locale: text("locale", { enum: LOCALES }).notNull().default("en"),
    version: integer("version").notNull(),
    required: integer("required", { mode: "boolean" }).notNull(),
    text: text("text").notNull(),
    paperCopyContact: text("paper_copy_contact").notNull(),
    withdrawalInstructions: text("withdrawal_instructions").notNull(),
    sha256: text("sha256").notNull(),
    createdBy: text("created_by"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("esign_disclosures_org_locale_version_uq").on(t.orgId, t.locale, t.version)],
);

/** An envelope's cc recipients (docs/consumer-signing.md): at most 10; they get the completed copy, never a signing link. */
export const envelopeCcRecipients = sqliteTable(
  "envelope_cc_recipients",
  {
    id: text("id").primaryKey(),
    envelopeId: text("envelope_id").notNull().references(() => envelopes.id),
    orgId: text("org_id").notNull(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    position: integer("position").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("envelope_cc_recipients_envelope_idx").on(t.envelopeId)],
);
