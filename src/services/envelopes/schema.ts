import { z } from "@hono/zod-openapi";
import { LocaleSchema } from "../i18n/schema";
import { ENVELOPE_STATUSES } from "../../db/schema";

export const Timestamp = z.string().openapi({ example: "2026-11-23T09:30:00.000Z", description: "UTC, ISO 8601 with milliseconds" });
export const EnvelopeId = z.string().openapi({ example: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y" });
export const EnvelopeStatusEnum = z.enum(ENVELOPE_STATUSES).openapi("EnvelopeStatus");

export const SecuredPartySchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    role: z.string().max(100).optional(),
    address: z.string().max(500).optional(),
    email: z.email().max(254).optional(),
    identifier: z.string().max(200).optional(),
  })
  .openapi("SecuredParty", { example: { name: "First Auto Finance LLC", role: "lender" } });

/** A cc recipient (docs/consumer-signing.md "Recipients"): gets the completed copy, never a signing link. */
export const CcRecipientSchema = z
  .object({ name: z.string().trim().min(1).max(200), email: z.email().max(254) })
  .openapi("CcRecipient", { example: { name: "Dealer Desk", email: "contracts@dealer.example" } });

export const VoidEnvelopeBody = z
  .object({ reason: z.string().trim().min(1).max(500) })
  .openapi("VoidEnvelope", { example: { reason: "Deal restructured; a new contract follows" } });

const LIST_ITEM_EXAMPLE = {
  envelope_id: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y",
  envelope_name: "Retail installment contract #1042",
  status: "pending" as const,
  customer_id: "cust_4h8j2k6m0p3r7t1v5x9z2b4d6f",
  external_id: "deal-1042",
  created_at: "2026-11-23T09:30:00.000Z",
  updated_at: "2026-11-23T09:30:00.000Z",
};

export const EnvelopeListItemSchema = z
  .object({
    envelope_id: EnvelopeId,
    envelope_name: z.string(),
    status: EnvelopeStatusEnum,
    customer_id: z.string(),
    external_id: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("EnvelopeListItem", { example: LIST_ITEM_EXAMPLE });

/** The Envelope example; the schemas that extend Envelope add their own fields to it. */
export const ENVELOPE_EXAMPLE = {
  ...LIST_ITEM_EXAMPLE,
  vault_id: null,
  template_id: null,
  vaulted: false,
  compliant: false,
  signed_at: null,
  expires_at: null,
  kba_required: false,
  consumer_consent: false,
  locale: "en",
  provider_instance: "default",
  secured_party: { name: "First Auto Finance LLC", role: "lender" },
  metadata: { document_source: "new" },
  cc: [],
};

export const EnvelopeSchema = EnvelopeListItemSchema.extend({
  vault_id: z
    .string()
    .nullable()
    .openapi({ description: "The vault record (`vlt_…`): GET /partner/vault/{vault_id}; null until the envelope is vaulted" }),
  template_id: z.string().nullable(),
  vaulted: z.boolean(),
  compliant: z.boolean().openapi({ description: "true once a compliance certificate has been generated" }),
  signed_at: Timestamp.nullable(),
  expires_at: Timestamp.nullable(),
  kba_required: z.boolean(),
  consumer_consent: z.boolean().openapi({ description: "Whether its signers must consent to electronic records (E-SIGN, 15 U.S.C. §7001(c)) before the document opens" }),
  locale: LocaleSchema.openapi({ description: "The signers' language (`en`, `es`): the signing page, their emails and the shipped disclosure" }),
  provider_instance: z.string(),
  // a union, not `.nullable()`: that would make the SecuredParty component itself nullable, and the create body with it
  secured_party: z.union([SecuredPartySchema, z.null()]),
  metadata: z
    .object({
      document_source: z.enum(["template", "package", "new", "upload"]).optional(),
      source_template_id: z.string().optional(),
      bulk_send: z.object({ batch_id: z.string(), item_id: z.string() }).optional(),
    })
    .openapi({ description: "Partner-safe subset of the envelope's metadata" }),
  cc: z
    .array(CcRecipientSchema)
    .openapi({ description: "Recipients who get the completed copy (a link to the sealed PDF, 30 days) once every signer has signed; never a signing link" }),
}).openapi("Envelope", { example: ENVELOPE_EXAMPLE });

export const EnvelopeStatusSchema = z
  .object({
    envelope_id: EnvelopeId,
    status: EnvelopeStatusEnum,
    vaulted: z.boolean(),
    compliant: z.boolean(),
    signed_at: Timestamp.nullable(),
    updated_at: Timestamp,
  })
  .openapi("EnvelopeStatusResponse", {
    example: {
      envelope_id: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y",
      status: "sent",
      vaulted: false,
      compliant: false,
      signed_at: null,
      updated_at: "2026-11-23T09:31:12.345Z",
    },
  });

export const ListEnvelopesQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).openapi({ example: 1 }),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ example: 20 }),
  customer_id: z.string().max(64).optional(),
  status: EnvelopeStatusEnum.optional(),
});
