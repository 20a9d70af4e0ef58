import { z } from "@hono/zod-openapi";
import { PROVIDER_INSTANCES, ResolvedFieldSchema, TemplateFieldsInputSchema, type ProviderInstance } from "../documents/schema";
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
    page_count: z.int(),
    fields_added: z.int(),
    fields: z.array(ResolvedFieldSchema),
  })
  .openapi("TemplateCreated", {
    example: { template_id: "tmpl_4h8j2k6m0p3r7t1v5x9z2b4d6f", provider_template_id: 1042, name: "Retail installment contract", external_id: "ric-v3", page_count: 4, fields_added: 0, fields: [] },
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
