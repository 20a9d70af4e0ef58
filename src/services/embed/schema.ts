import { z } from "@hono/zod-openapi";
import { CertificateSchema } from "../vault/schema";
import { EnvelopeId, EnvelopeStatusEnum, Timestamp } from "../envelopes/schema";
import { FrameAncestorsInput } from "./frame-ancestors";
import { WIDGETS } from "./tokens";

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

export const VaultSessionSchema = z
  .object({
    widget_type: z.literal("vault"),
    ...SessionEnvelope,
    vault: z
      .object({
        sha256: z.string().openapi({ description: "SHA-256 (hex) of the authoritative copy, recorded at vaulting" }),
        vaulted_at: Timestamp,
        certificate: CertificateSchema,
        download: z.object({
          url: z.string().openapi({ description: "Signed download URL of the authoritative copy on the storage host (5 minutes)" }),
          expires_at: Timestamp,
        }),
        certificate_download: z.object({
          url: z.string().openapi({ description: "Signed download URL of the compliance certificate's PDF on the storage host (5 minutes)" }),
          expires_at: Timestamp,
        }),
        compliance: z.object({ compliant: z.boolean(), score: z.number() }),
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
