import { z } from "@hono/zod-openapi";
import { CertificateSchema } from "../vault/schema";
import { HoldSchema } from "../control/record-schema";
import { CONTROL_STATUSES } from "../../db/schema";
import { EnvelopeId, EnvelopeStatusEnum, Timestamp } from "../envelopes/schema";
import { FrameAncestorsInput } from "./frame-ancestors";
import { WIDGETS } from "./tokens";
import { LocaleSchema } from "../i18n/schema";

export const EmbedSessionBody = z
  .object({
    widget_type: z.enum(WIDGETS).openapi({ description: "The widget the page was opened for (the first segment of the embed_url path)" }),
    envelope_id: z.string().min(1).max(64).openapi({ description: "The envelope the page was opened for (the second segment of the embed_url path)" }),
  })
  .openapi("EmbedSessionInput", { example: { widget_type: "sign", envelope_id: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y" } });

const SessionEnvelope = { envelope_id: EnvelopeId, envelope_name: z.string(), envelope_status: EnvelopeStatusEnum };

export const SignSessionSchema = z
  .object({
    widget_type: z.literal("sign"),
    ...SessionEnvelope,
    signing_slug: z.string().openapi({
      description:
        "A short-lived signing session for the token's signer (not the signer's permanent slug): use it as `{slug}` in GET /api/v2/signing/{slug} and the other signer routes until `signing_session_expires_at`, the embed token's own expiry; after that they answer 410 (`code: signing_session_expired`)",
    }),
    signing_session_expires_at: Timestamp.openapi({ description: "When the signing session ends: the embed token's expiry" }),
  })
  .openapi("EmbedSignSession");

/** The record's retention, legal holds and destroyed state, as GET /partner/vault/{vault_id} answers them, for the widget to show. */
const VaultWidgetRecordSchema = z
  .object({
    vault_id: z.string(),
    status: z.enum(CONTROL_STATUSES).openapi({ description: "`active`, `paid_off`, `paper_out` or `destroyed`" }),
    closed_at: Timestamp.nullable().openapi({ description: "When the record closed (paid off, papered out); null while active" }),
    retain_until: Timestamp.nullable().openapi({ description: "Until when the closed record is kept; null while active (kept while open)" }),
    auto_destroy: z.boolean().openapi({ description: "Whether the controller's retention policy destroys the record by itself once `retain_until` passes (unless a legal hold keeps it)" }),
    destroyed_at: Timestamp.nullable().openapi({ description: "When the record was destroyed; null otherwise" }),
    holds: z
      .array(HoldSchema.extend({ placed_by_name: z.string().nullable().openapi({ description: "The name of the organization that placed it; null: the operator" }) }))
      .openapi({ description: "The legal holds in force, oldest first: while one is, the record cannot be destroyed" }),
  })
  .openapi("EmbedVaultRecord");

export const VaultSessionSchema = z
  .object({
    widget_type: z.literal("vault"),
    ...SessionEnvelope,
    locale: LocaleSchema.openapi({ description: "The widget's language: the embed token's `locale`, else the organization's `default_locale`" }),
    vault: z
      .object({
        sha256: z.string().openapi({ description: "SHA-256 (hex) of the authoritative copy, recorded at vaulting" }),
        vaulted_at: Timestamp,
        certificate: CertificateSchema,
        download: z
          .object({
            url: z.string().openapi({ description: "Signed download URL of the authoritative copy on the storage host (5 minutes)" }),
            expires_at: Timestamp,
          })
          .nullable()
          .openapi({ description: "null once the record is destroyed: its files were deleted" }),
        certificate_download: z.object({
          url: z.string().openapi({ description: "Signed download URL of the compliance certificate's PDF on the storage host (5 minutes)" }),
          expires_at: Timestamp,
        }),
        compliance: z.object({ compliant: z.boolean(), score: z.number() }),
        record: VaultWidgetRecordSchema,
      })
      .nullable()
      .openapi({ description: "null while the envelope is not vaulted" }),
  })
  .openapi("EmbedVaultSession");

export const EmbedSessionSchema = z.discriminatedUnion("widget_type", [SignSessionSchema, VaultSessionSchema]).openapi("EmbedSession");

export type EmbedSession = z.infer<typeof EmbedSessionSchema>;

export const EmbedSettingsBody = z
  .strictObject({ frame_ancestors: FrameAncestorsInput })
  .openapi("EmbedSettingsInput", { example: { frame_ancestors: ["https://dealer.example.com", "https://*.partner.example"] } });

export const EmbedSettingsSchema = z
  .object({
    org_id: z.string(),
    frame_ancestors: z.array(z.string()).openapi({ description: "Normalized origins allowed to frame the signing page and widgets" }),
    content_security_policy: z.string().openapi({
      description: "The CSP directive the signing page and widgets of this organization are served with",
      example: "frame-ancestors 'self' https://dealer.example.com",
    }),
    updated_at: Timestamp,
  })
  .openapi("EmbedSettings");

export type EmbedSettings = z.infer<typeof EmbedSettingsSchema>;
