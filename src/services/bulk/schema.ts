import { z } from "@hono/zod-openapi";
import { LocaleSchema } from "../i18n/schema";
import { BULK_BATCH_STATUSES, BULK_ITEM_STATUSES } from "../../db/schema";
import { PROVIDER_INSTANCES } from "../templates/schema";
import { PHONE_PATTERN, SIGNER_AUTHS } from "../signers/schema";

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

const Phone = z.string().regex(PHONE_PATTERN, "an E.164 phone number such as +15551234567");

/** One client of the batch with how its signer signs, as a single send's signer (`SignerInput`) says it. */
const BulkItemInput = z
  .object({
    customer_id: Id,
    locale: LocaleSchema.optional().openapi({ description: "The envelope's language (`en`, `es`); omitted: the organization's `default_locale`" }),
    auth: z.enum(SIGNER_AUTHS).optional().openapi({
      description:
        "`sms_otp`: the client's signer asks for a 6-digit code texted to `phone` and enters it before the document, as a single send's signer with `auth: \"sms_otp\"` (until then the signing page answers 403 `otp_required`). Omitted: the link alone",
    }),
    phone: Phone.optional().openapi({ description: "E.164 (`+15551234567`); required with `auth: \"sms_otp\"`, refused without it" }),
  })
  .superRefine((item, ctx) => {
    // the single send's rule (SignerInput), and its converse: a phone here is only ever the code's number
    if (item.auth === "sms_otp" && !item.phone) ctx.addIssue({ code: "custom", path: ["phone"], message: "auth sms_otp needs the signer's phone (E.164, such as +15551234567)" });
    if (item.phone && !item.auth) ctx.addIssue({ code: "custom", path: ["auth"], message: "a phone is only the number the signer's code is texted to: give auth \"sms_otp\" with it, or leave the phone out" });
  })
  .openapi("BulkItemInput");

export const SetItemsBody = z
  .object({
    customer_ids: z.array(Id).min(1).max(MAX_BULK_ITEMS).optional().openapi({ description: "1 to 1,000 customer ids; replaces the batch's client list. Give this or `items`, not both" }),
    items: z
      .array(BulkItemInput)
      .min(1)
      .max(MAX_BULK_ITEMS)
      .optional()
      .openapi({ description: "1 to 1,000 clients, each with its own `locale` and `auth`/`phone`; replaces the batch's client list. Give this or `customer_ids`, not both; with `items`, `locales` and `phones` are refused" }),
    locales: z
      .record(Id, LocaleSchema)
      .optional()
      .openapi({ description: "With `customer_ids`: the language (`en`, `es`) of some clients' envelopes, by customer id; the others take the organization's `default_locale`" }),
    phones: z
      .record(Id, Phone)
      .optional()
      .openapi({
        deprecated: true,
        description:
          "Deprecated: use `items` with `auth: \"sms_otp\"` and `phone`, as a single send's signer. With `customer_ids`: some clients' phones (E.164), by customer id; their envelope's signer is sent with `auth: \"sms_otp\"` and asked for a 6-digit code texted to it before the document. The others sign with the link alone",
      }),
  })
  .superRefine((body, ctx) => {
    if ((body.customer_ids === undefined) === (body.items === undefined)) {
      ctx.addIssue({ code: "custom", path: body.items ? ["items"] : ["customer_ids"], message: "Give exactly one of customer_ids or items" });
    }
    if (body.items) {
      for (const key of ["locales", "phones"] as const) {
        if (body[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: `${key} goes with customer_ids; with items, give each item its ${key === "locales" ? "locale" : "auth and phone"}` });
      }
    }
  })
  .openapi("SetBulkItems", {
    example: {
      items: [
        { customer_id: "cust_4k9m2x7q1c8v5b3n6p0r2t4w6y", locale: "es", auth: "sms_otp", phone: "+15551234567" },
        { customer_id: "cust_7h3k9m2x4q1c8v5b3n6p0r2t4w" },
      ],
    },
  });
export type SetItemsInput = z.infer<typeof SetItemsBody>;

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
    auth: z.enum(SIGNER_AUTHS).nullable().openapi({ description: "How the client's signer proves they hold the link besides the email: `sms_otp` (a code texted to `phone`), or null (the link alone)" }),
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
