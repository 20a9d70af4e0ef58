import { LOCALES } from "./locales";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { customers } from "./customers";
import { organizations } from "./organizations";

export const BULK_BATCH_STATUSES = ["draft", "ready", "running", "completed", "cancelled", "failed"] as const;
export type BulkBatchStatus = (typeof BULK_BATCH_STATUSES)[number];
export const BULK_ITEM_STATUSES = ["pending", "running", "sent", "failed", "skipped", "cancelled"] as const;
export type BulkItemStatus = (typeof BULK_ITEM_STATUSES)[number];

/**
 * A bulk-send batch (spec 2, 4.8). The counters are kept in the row, in the same batch as each item
 * change, so the progress route reads them instead of counting up to 1,000 item rows per poll.
 * `pending` is `total_count` minus every other counter.
 */
export const bulkBatches = sqliteTable(
  "bulk_batches",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    name: text("name").notNull(),
    documentSource: text("document_source", { enum: ["template", "package", "new"] }).notNull(),
    sourceTemplateId: text("source_template_id"),
    sourcePackageId: text("source_package_id"),
    kbaRequired: integer("kba_required", { mode: "boolean" }).notNull().default(false),
    providerInstance: text("provider_instance", { enum: ["default", "cloud"] }).notNull().default("default"),
    preserveSigningOrder: integer("preserve_signing_order", { mode: "boolean" }).notNull().default(true),
    addMeAsSigner: integer("add_me_as_signer", { mode: "boolean" }).notNull().default(false),
    autoVaultEnabled: integer("auto_vault_enabled", { mode: "boolean" }).notNull().default(false),
    vaultTermsAcceptedAt: text("vault_terms_accepted_at"),
    vaultTermsAcceptedBy: text("vault_terms_accepted_by"),
    tagIds: text("tag_ids", { mode: "json" }).$type<string[]>().notNull(),
    masterTemplateId: text("master_template_id"),
    /** the builder source the master template was made from (reopening with the same source continues it) */
    masterSource: text("master_source", { mode: "json" }),
    status: text("status", { enum: BULK_BATCH_STATUSES }).notNull(),
    totalCount: integer("total_count").notNull().default(0),
    runningCount: integer("running_count").notNull().default(0),
    sentCount: integer("sent_count").notNull().default(0),
    failedCount: integer("failed_count").notNull().default(0),
    skippedCount: integer("skipped_count").notNull().default(0),
    cancelledCount: integer("cancelled_count").notNull().default(0),
    /** the console user who created the batch: the sender of every envelope */
    createdBy: text("created_by").notNull(),
    error: text("error"),
    submittedAt: text("submitted_at"),
    finishedAt: text("finished_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (t) => [
    index("bulk_batches_org_idx").on(t.orgId, t.createdAt),
    // the minute safety net reads only the batches still in flight
    index("bulk_batches_status_idx").on(t.status, t.updatedAt),
  ],
);

/**
 * One client of a batch. `envelope_key` is the envelope id reserved for the item when the list is set:
 * the workflow creates the envelope under exactly that id, so a resumed chunk finds the envelope it
 * created before a crash instead of creating a second one (the primary key refuses a second anyway).
 */
export const bulkItems = sqliteTable(
  "bulk_items",
  {
    id: text("id").primaryKey(),
    batchId: text("batch_id").notNull().references(() => bulkBatches.id),
    orgId: text("org_id").notNull(),
    position: integer("position").notNull(),
    customerId: text("customer_id").notNull().references(() => customers.id),
    customerName: text("customer_name").notNull(),
    email: text("email"),
    /** the item's language; null: the batch's envelopes take the organization's default */
    locale: text("locale", { enum: LOCALES }),
    /** the client's phone (E.164): their envelope's signer is asked for a texted code (auth sms_otp); null: the link alone */
    phone: text("phone"),
    status: text("status", { enum: BULK_ITEM_STATUSES }).notNull(),
    envelopeKey: text("envelope_key").notNull().unique(),
    envelopeId: text("envelope_id"),
    attempts: integer("attempts").notNull().default(0),
    error: text("error"),
    sentAt: text("sent_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("bulk_items_batch_customer_uq").on(t.batchId, t.customerId), index("bulk_items_batch_status_idx").on(t.batchId, t.status, t.position)],
);
