import { z } from "@hono/zod-openapi";
import { PROVIDER_INSTANCES, RESOLVED_FIELD_EXAMPLE, ResolvedFieldSchema, TemplateFieldsInputSchema, type ProviderInstance } from "../documents/schema";
import { Timestamp } from "../envelopes/schema";

// The field vocabulary lives with the documents fields are placed on (documents/schema.ts); re-exported here for the services and routes.
export {
  AreaSchema,
  CHOICE_TYPES,
  FIELD_TYPES,
  isChoiceType,
  MAX_OPTION_LENGTH,
  MAX_OPTIONS,
  PLACEMENT_MODES,
  PROVIDER_INSTANCES,
  RESOLVED_FIELD_EXAMPLE,
  ResolvedFieldSchema,
  TemplateFieldInputSchema,
  TemplateFieldsInputSchema,
} from "../documents/schema";
export type { AreaInput, FieldType, PlacementMode, ProviderInstance, ResolvedField, TemplateFieldInput } from "../documents/schema";

export const instanceFor = (kbaRequired: boolean): ProviderInstance => (kbaRequired ? "cloud" : "default");

export const AddFieldsBody = z.object({ fields: TemplateFieldsInputSchema.min(1) }).openapi("AddTemplateFields");

export const TemplateUploadResponse = z
  .object({
    template_id: z.string(),
    provider_template_id: z.int(),
    name: z.string(),
    external_id: z.string().nullable(),
    kba_required: z.boolean().openapi({ description: "Fixed at creation: envelopes from this template require KBA" }),
    provider_instance: z.enum(PROVIDER_INSTANCES).openapi({ description: "`cloud` for KBA templates" }),
    page_count: z.int(),
    fields_added: z.int(),
    fields: z.array(ResolvedFieldSchema),
  })
  .openapi("TemplateCreated", {
    example: {
      template_id: "tmpl_4h8j2k6m0p3r7t1v5x9z2b4d6f",
      provider_template_id: 1042,
      name: "Retail installment contract",
      external_id: "ric-v3",
      kba_required: false,
      provider_instance: "default",
      page_count: 4,
      fields_added: 0,
      fields: [],
    },
  });

export const FieldsAddedResponse = z
  .object({ template_id: z.string(), fields_added: z.int(), fields: z.array(ResolvedFieldSchema) })
  .openapi("TemplateFieldsAdded");

export const TemplateSchema = z
  .object({
    template_id: z.string(),
    name: z.string(),
    external_id: z.string().nullable(),
    kba_required: z.boolean().openapi({ description: "Fixed at creation" }),
    provider_instance: z.enum(PROVIDER_INSTANCES).openapi({ description: "`cloud` for KBA templates" }),
    provider_template_id: z.int(),
    has_document: z.boolean(),
    page_count: z.int().nullable(),
    fields: z.array(ResolvedFieldSchema),
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: Timestamp.nullable(),
  })
  .openapi("Template");

const PARTNER_TEMPLATE_EXAMPLE = {
  template_id: "tmpl_4h8j2k6m0p3r7t1v5x9z2b4d6f",
  name: "Retail installment contract",
  external_id: "ric-v3",
  kba_required: true,
  provider_instance: "cloud" as const,
  provider_template_id: 1042,
  has_document: true,
  page_count: 4,
  roles: ["buyer", "co_buyer"],
  field_count: 3,
  created_at: "2026-03-02T15:04:05.000Z",
  updated_at: "2026-03-02T15:04:05.000Z",
};

/** A template in GET /partner/templates: the spec's Template, its roles and its field count (its fields: GET by id). */
export const PartnerTemplateListItemSchema = z
  .object({
    template_id: z.string(),
    name: z.string(),
    external_id: z.string().nullable(),
    kba_required: z.boolean().openapi({ description: "Fixed at creation: envelopes from this template require KBA" }),
    provider_instance: z.enum(PROVIDER_INSTANCES).openapi({ description: "`cloud` for KBA templates" }),
    provider_template_id: z.int(),
    has_document: z.boolean().openapi({ description: "False for a console template still waiting for its PDF (it cannot start an envelope yet)" }),
    page_count: z.int().nullable(),
    roles: z.array(z.string()).openapi({ description: "The parties the template is addressed to (its fields' roles, in the order of each role's first field): the `role` of each signer on send" }),
    field_count: z.int(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("PartnerTemplateListItem", { example: PARTNER_TEMPLATE_EXAMPLE });

/** GET /partner/templates/:id: the list item plus every placed field. */
export const PartnerTemplateSchema = PartnerTemplateListItemSchema.extend({ fields: z.array(ResolvedFieldSchema) }).openapi("PartnerTemplate", {
  example: { ...PARTNER_TEMPLATE_EXAMPLE, field_count: 1, roles: ["buyer"], fields: [RESOLVED_FIELD_EXAMPLE] },
});

export const ListTemplatesQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).openapi({ example: 1 }),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ example: 20 }),
});

export const TemplateParams = z.object({
  template_id: z.string().max(64).openapi({ param: { name: "template_id", in: "path" }, example: "tmpl_4h8j2k6m0p3r7t1v5x9z2b4d6f" }),
});

export const CreateConsoleTemplateBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    kba_required: z.boolean().default(false).openapi({ description: "Fixed at creation; KBA templates live in the `cloud` provider instance" }),
    external_id: z.string().trim().min(1).max(200).optional(),
  })
  .openapi("CreateTemplate", { example: { name: "Retail installment contract (KBA)", kba_required: true } });
export type CreateConsoleTemplateInput = z.infer<typeof CreateConsoleTemplateBody>;

export const UpdateTemplateBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    external_id: z.string().trim().min(1).max(200).nullable().optional(),
    kba_required: z.boolean().optional().openapi({ description: "Immutable: any change is 409" }),
  })
  .openapi("UpdateTemplate", { example: { name: "Retail installment contract v4" } });
export type UpdateTemplateInput = z.infer<typeof UpdateTemplateBody>;
