import { z } from "@hono/zod-openapi";
import { LocaleSchema } from "../i18n/schema";
import { BULK_BATCH_STATUSES, BULK_ITEM_STATUSES } from "../../db/schema";
import { PROVIDER_INSTANCES } from "../templates/schema";
import { PHONE_PATTERN } from "../signers/schema";

/** Spec part 8: 1 to 1,000 clients per batch. */
export const MAX_BULK_ITEMS = 1000;
/** Items per page of the progress route (`items`); the counters always cover the whole batch. */
export const PROGRESS_PAGE_DEFAULT = 200;
export const PROGRESS_PAGE_MAX = 1000;

const Id = z.string().min(1).max(64);
const TagId = z.string().regex(/^tag_[0-9a-z]{1,60}$/, "a tag id: tag_ followed by lower-case letters and digits");
/** Bulk-send progress times omit milliseconds (spec part 2, conventions). */
const ProgressTime = z.string().openapi({ example: "2026-11-23T09:30:00Z", description: "UTC, ISO 8601 without milliseconds" });

export const BatchParams = z.object({
  batch_id: z.string().max(64).openapi({ param: { name: "batch_id", in: "path" }, example: "bsb_4k9m2x7q1c8v5b3n6p0r2t4w6y" }),
});

export const CreateBatchBody = z
  .object({
    name: z.string().trim().min(1).max(200).openapi({ description: "Becomes `envelope_name` on every envelope" }),
    document_source: z.enum(["template", "package", "new"]),
    source_template_id: Id.optional().openapi({ description: "Required for `template` (a `tpl_` id is accepted as the same template)" }),
    source_package_id: Id.optional().openapi({ description: "Required for `package`" }),
    kba_required: z.boolean().optional().openapi({ description: "Settable only for `new`; derived from the source otherwise" }),
    preserve_signing_order: z.boolean().optional().openapi({ description: "Default true" }),
    add_me_as_signer: z.boolean().optional().openapi({ description: "Default false" }),
    auto_vault_enabled: z.boolean().optional().openapi({ description: "Needs the terms accepted (vault-consent) before submit" }),
    tag_ids: z.array(TagId).max(50).optional().openapi({ description: "Applied to every envelope" }),
  })
  .openapi("CreateBulkBatch", { example: { name: "Rate change addendum, December", document_source: "template", source_template_id: "tmpl_4h8j2k6m0p3r7t1v5x9z2b4d6f", add_me_as_signer: false } });
export type CreateBatchInput = z.infer<typeof CreateBatchBody>;

export const UpdateBatchBody = z
  .object({
    master_template_id: Id.optional(),
    name: z.string().trim().min(1).max(200).optional(),
    preserve_signing_order: z.boolean().optional(),
    add_me_as_signer: z.boolean().optional(),
    tag_ids: z.array(TagId).max(50).optional(),
    auto_vault_enabled: z.boolean().optional(),
    kba_required: z.boolean().optional().openapi({ description: "Only for `new`, and only before the editor is opened" }),
  })
  .openapi("UpdateBulkBatch", { example: { name: "Rate change addendum, January", add_me_as_signer: true } });
export type UpdateBatchInput = z.infer<typeof UpdateBatchBody>;

export const VaultConsentBody = z
  .object({ auto_vault_enabled: z.boolean(), acknowledge_authoritative_copy: z.boolean().optional() })
  .openapi("BulkVaultConsent", { example: { auto_vault_enabled: true, acknowledge_authoritative_copy: true } });

export const SetItemsBody = z
  .object({
    customer_ids: z.array(Id).min(1).max(MAX_BULK_ITEMS).openapi({ description: "1 to 1,000 customer ids; replaces the batch's client list" }),
    locales: z
      .record(Id, LocaleSchema)
      .optional()
      .openapi({ description: "The language (`en`, `es`) of some clients' envelopes, by customer id; the others take the organization's `default_locale`" }),
    phones: z
      .record(Id, z.string().regex(PHONE_PATTERN, "an E.164 phone number such as +15551234567"))
      .optional()
      .openapi({
        description:
          "Some clients' phones (E.164), by customer id: their envelope's signer is sent with `auth: \"sms_otp\"` and asked for a 6-digit code texted to it before the document, as a single send's signer is. The others sign with the link alone",
      }),
  })
  .openapi("SetBulkItems", { example: { customer_ids: ["cust_4k9m2x7q1c8v5b3n6p0r2t4w6y", "cust_7h3k9m2x4q1c8v5b3n6p0r2t4w"] } });

export const SetItemsResultSchema = z
  .object({
    added: z.int().openapi({ description: "Clients kept on the batch (to be sent, and those skipped)" }),
    skipped_no_email: z.array(z.string()).openapi({ description: "Kept as `skipped`: no email, or the sender's own email" }),
    rejected: z.array(z.string()).openapi({ description: "Not customers of this organization: not added" }),
  })
  .openapi("BulkItemsResult");

const batchFields = {
  batch_id: z.string(),
  name: z.string(),
  document_source: z.enum(["template", "package", "new"]),
  source_template_id: z.string().nullable(),
  source_package_id: z.string().nullable(),
  kba_required: z.boolean(),
  preserve_signing_order: z.boolean(),
  add_me_as_signer: z.boolean(),
  auto_vault_enabled: z.boolean(),
  vault_in_terms_accepted_at: ProgressTime.nullable(),
  vault_in_terms_accepted_by: z.string().nullable(),
  tag_ids: z.array(z.string()),
  master_template_id: z.string().nullable(),
  provider_instance: z.enum(PROVIDER_INSTANCES),
  status: z.enum(BULK_BATCH_STATUSES),
  total_count: z.int(),
  sent_count: z.int(),
  failed_count: z.int(),
  skipped_count: z.int(),
  error: z.string().nullable().openapi({ description: "Why the workflow gave up (`failed`), else null" }),
  created_at: ProgressTime,
  updated_at: ProgressTime,
  submitted_at: ProgressTime.nullable(),
  finished_at: ProgressTime.nullable(),
};
export const BatchSchema = z.object(batchFields).openapi("BulkBatch");

export const BatchItemSchema = z
  .object({
    item_id: z.string(),
    customer_id: z.string(),
    customer_name: z.string(),
    email: z.string().nullable(),
    locale: LocaleSchema.nullable().openapi({ description: "The envelope's language; null: the organization's `default_locale`" }),
    phone: z.string().nullable().openapi({ example: "+1******4567", description: "The phone the signer's code is texted to (auth `sms_otp`), masked as the signing page shows it; null: the link alone" }),
    status: z.enum(BULK_ITEM_STATUSES),
    envelope_id: z.string().nullable(),
    error: z.string().nullable(),
    sent_at: ProgressTime.nullable(),
  })
  .openapi("BulkItem");

export const BatchCountsSchema = z
  .object({ pending: z.int(), running: z.int(), sent: z.int(), failed: z.int(), skipped: z.int(), cancelled: z.int() })
  .openapi("BulkCounts");

export const ProgressQuery = z.object({
  limit: z.coerce.number().int().min(1).max(PROGRESS_PAGE_MAX).optional().openapi({ description: `Items per page (default ${PROGRESS_PAGE_DEFAULT}, max ${PROGRESS_PAGE_MAX})` }),
  page: z.coerce.number().int().min(1).max(MAX_BULK_ITEMS).default(1).openapi({ example: 1, description: "Page number, from 1" }),
  // `not: {}`: no value is accepted (zod-openapi cannot write z.never by itself)
  offset: z.never().optional().openapi({ type: "integer", not: {}, deprecated: true, description: "No longer accepted (400): pages are `page` and `limit`, as on every other list" }),
  status: z.enum(BULK_ITEM_STATUSES).optional().openapi({ description: "Only items in this status" }),
});

export const ProgressSchema = z
  .object({
    batch: z.object({ batch_id: z.string(), status: z.enum(BULK_BATCH_STATUSES), total_count: z.int(), sent_count: z.int(), failed_count: z.int(), skipped_count: z.int() }),
    counts: BatchCountsSchema,
    items: z.array(BatchItemSchema),
  })
  .openapi("BulkProgress");

export const ProgressMetaSchema = z.object({ page: z.int(), limit: z.int(), total: z.int().openapi({ description: "Items matching the filter" }) });
