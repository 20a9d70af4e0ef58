import { z } from "@hono/zod-openapi";
import { LOCALES } from "../../db/schema/locales";
import { SecuredPartySchema, Timestamp } from "../envelopes/schema";

export const VaultInSignedBody = z
  .object({
    secured_party: SecuredPartySchema.optional().openapi({
      description: "Names the secured party (UCC check 8) on an envelope that has none; a different one than the envelope's is 409",
    }),
  })
  .openapi("VaultInSigned", { example: { secured_party: { name: "First Auto Finance LLC", role: "lender" } } });

/** The text fields of vault-in-upload's multipart body (the file part is read by readMultipartForm). */
export const VaultInUploadFields = z.object({
  signed_at: z.iso.datetime({ offset: true }).optional(),
});

/** For the OpenAPI document only: a plain schema object, so the router does not buffer and parse the form itself. */
export const VaultInUploadFormDoc = {
  type: "object" as const,
  required: ["file"],
  properties: {
    file: { type: "string" as const, format: "binary", description: "The signed paper document: a PDF of at most 50 MB" },
    signed_at: {
      type: "string" as const,
      format: "date-time",
      description: "When the paper was signed (ISO 8601; not in the future). Default: the time of the upload",
    },
  },
};

export const VaultUrlQuery = z.object({
  expires: z.coerce
    .number()
    .int()
    .min(60)
    .max(86_400)
    .default(300)
    .openapi({ param: { name: "expires", in: "query" }, description: "URL lifetime in seconds, 60 to 86400 (default 300)", example: 300 }),
});

export const VAULT_URL_EXAMPLE = {
  signed_url: "https://storage.example.com/storage/v/vlt_4d2k8m1q7c9v3b5n6p0r2t4w6y/authoritative?exp=1795400000&sig=9f1c…",
  filename: "retail-installment-contract-1042_env_9x2k4m7q1c8v5b3n6p0r2t4w6y.pdf",
  expires_in: 300,
  expires_at: "2026-11-23T09:35:00.000Z",
};

export const VaultUrlSchema = z
  .object({
    signed_url: z.string().openapi({ description: "HMAC-signed download URL on the storage host" }),
    filename: z.string(),
    expires_in: z.int(),
    expires_at: Timestamp,
  })
  .openapi("VaultUrl", { example: VAULT_URL_EXAMPLE });

const CheckSchema = z.object({ requirement: z.string(), ucc_reference: z.string(), satisfied: z.boolean(), detail: z.string() });

const CertificatePartySchema = z.object({ org_id: z.string(), name: z.string() });

const CertificateControlSchema = z
  .object({
    originator: CertificatePartySchema.openapi({ description: "The organization that vaulted the record" }),
    controller: CertificatePartySchema.openapi({
      description: "The organization with control under §9-105: the service holds the authoritative copy as custodian for it, and gives it to no one else",
    }),
    pledgor: CertificatePartySchema.nullable().openapi({ description: "While the record is pledged: the organization control returns to when the pledge is released" }),
    status: z.enum(["active", "paid_off", "paper_out", "destroyed"]).openapi({
      description: "`paid_off` and `paper_out` are terminal: control no longer moves; `destroyed`: destroyed after its retention period",
    }),
    transfer_count: z.int().openapi({ description: "Transfers of control accepted so far (assignments and pledges)" }),
    retain_until: z.string().nullable().optional().openapi({ description: "Until when the closed record is kept (set at close); absent on certificates issued before retention existed" }),
    destroyed_at: z.string().nullable().optional().openapi({ description: "When the record was destroyed" }),
    legal_holds: z
      .array(z.object({ hold_id: z.string(), placed_by_org_id: z.string().nullable(), reason: z.string(), reference: z.string().nullable(), placed_at: z.string() }))
      .optional()
      .openapi({ description: "The legal holds in force as of the certificate (`placed_by_org_id` null: the operator); the record cannot be destroyed while one is" }),
  })
  .openapi("CertificateControl", {
    example: {
      originator: { org_id: "org_4d2k8m1q7c9v3b5n6p0r2t4w6y", name: "Sunrise Motors" },
      controller: { org_id: "org_7h3j9k2m4n6p8q1r3s5t7v9w2x", name: "First Auto Finance LLC" },
      pledgor: null,
      status: "active",
      transfer_count: 1,
    },
  });

export const CertificateSchema = z
  .object({
    certificate_type: z.literal("ucc_9105_electronic_chattel_paper"),
    certificate_version: z.literal("1.0"),
    issued_at: Timestamp,
    subject: z.object({
      envelope_id: z.string(),
      envelope_name: z.string(),
      customer_id: z.string(),
      status: z.string(),
      locale: z
        .enum(LOCALES)
        .optional()
        .openapi({ description: "The language the signing page, the signers' emails and the E-SIGN disclosure were shown in; absent on certificates issued before it was recorded" }),
    }),
    secured_party: z.object({ name: z.string().nullable(), role: z.string().nullable() }),
    document_integrity: z.object({
      hash_algorithm: z.literal("SHA-256"),
      document_hash: z.string(),
      evidence_level: z.enum(["B-B", "B-T", "B-LT", "B-LTA"]).optional().openapi({
        description: "PAdES baseline level (ETSI EN 319 142-1) of the vaulted bytes' seal (docs/evidence.md). Absent on paper uploads and on certificates issued before levels were recorded.",
      }),
      evidence_level_target: z.enum(["B-B", "B-T", "B-LT", "B-LTA"]).optional().openapi({ description: "Present only when `evidence_level` is below it: the level the configuration targets" }),
      evidence_level_reason: z.string().optional().openapi({ description: "Present only when `evidence_level` is below the target: why the record was vaulted without it" }),
    }),
    ucc_9105_compliance: z.object({ compliant: z.boolean(), score: z.number(), checks: z.array(CheckSchema).length(8) }),
    esign_act_compliance: z.object({
      act: z.string(),
      citation: z.string(),
      compliant: z.boolean().openapi({ description: "The retention checks (§7001(d)) and, where the envelope asked for it, every signer's consent (§7001(c))" }),
      consumer_consent: z
        .object({
          required: z.boolean(),
          citation: z.literal("15 U.S.C. §7001(c)"),
          disclosure_version: z.int().nullable(),
          disclosure_sha256: z.string().nullable().openapi({ description: "SHA-256 of the disclosure version the signers were shown (named on each consent's audit entry)" }),
          signers: z.array(z.object({ role: z.string(), name: z.string(), consented_at: Timestamp.nullable() })),
        })
        .optional()
        .openapi({ description: "E-SIGN consumer consent (docs/consumer-signing.md): the disclosure and when each signer consented; absent on certificates issued before it was recorded" }),
    }),
    identity_verification: z
      .object({
        kba_required: z.boolean(),
        signers: z.array(
          z.object({
            signer: z.string(),
            status: z.enum(["passed", "failed", "unavailable"]),
            timestamp: Timestamp,
            ip_address: z.string().nullable(),
            provider: z.string().openapi({ description: "The KBA provider; `sandbox` is the deterministic development provider and verifies nobody" }),
            session_id: z.string().nullable(),
          }),
        ),
      })
      .openapi({ description: "KBA outcome per signer; additive evidence only, it does not change the checks or the score" }),
    control: CertificateControlSchema.optional().openapi({
      description:
        "Control of the authoritative copy as of `issued_at` (UCC §9-105): a new certificate version is issued with every change of control. Absent only on certificates issued before control could move.",
    }),
  })
  .openapi("ComplianceCertificate");

export const AutoVaultConsentBody = z
  .object({
    auto_vault_enabled: z.boolean(),
    acknowledge_authoritative_copy: z.boolean().openapi({
      description: "Must be true to enable: the vault will hold the authoritative copy under UCC §9-105",
    }),
  })
  .openapi("AutoVaultConsent", { example: { auto_vault_enabled: true, acknowledge_authoritative_copy: true } });

export const AutoVaultConsentSchema = z
  .object({
    envelope_id: z.string(),
    auto_vault_enabled: z.boolean(),
    vault_in_terms_accepted_at: Timestamp.nullable(),
    vault_in_terms_accepted_by: z.string().nullable(),
    status: z.string(),
    vaulted: z.boolean(),
  })
  .openapi("AutoVaultConsentState");
