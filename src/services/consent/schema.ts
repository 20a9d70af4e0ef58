import { z } from "@hono/zod-openapi";
import { LocaleSchema } from "../i18n/schema";

/** Limits on a saved disclosure (422 beyond them). */
export const DISCLOSURE_LIMITS = { text: 20_000, paper_copy_contact: 1_000, withdrawal_instructions: 2_000 } as const;

export const EsignDisclosureBody = z
  .strictObject({
    required: z.boolean().openapi({ description: "Whether new envelopes ask their signers for consent by default (an envelope's `consumer_consent` overrides it)" }),
    text: z.string().trim().min(1).max(DISCLOSURE_LIMITS.text).openapi({ description: `The disclosure shown to the signer before consent (at most ${DISCLOSURE_LIMITS.text} characters)` }),
    paper_copy_contact: z
      .string()
      .trim()
      .min(1)
      .max(DISCLOSURE_LIMITS.paper_copy_contact)
      .openapi({ description: "How to ask for a paper copy, and any fee (15 U.S.C. §7001(c)(1)(B)(iv))" }),
    withdrawal_instructions: z
      .string()
      .trim()
      .min(1)
      .max(DISCLOSURE_LIMITS.withdrawal_instructions)
      .openapi({ description: "How to withdraw consent, and what follows (15 U.S.C. §7001(c)(1)(B)(i), (iii))" }),
  })
  .openapi("EsignDisclosureInput", {
    example: {
      required: true,
      text: "CONSENT TO USE ELECTRONIC RECORDS AND SIGNATURES …",
      paper_copy_contact: "Call (555) 010-2000 or write to 1 Main St, Springfield; paper copies are free.",
      withdrawal_instructions: "Choose \"Withdraw consent\" on the signing page, or call (555) 010-2000.",
    },
  });
export type EsignDisclosureInput = z.infer<typeof EsignDisclosureBody>;

export const EsignDisclosureSchema = z
  .object({
    locale: LocaleSchema,
    required: z.boolean(),
    text: z.string(),
    paper_copy_contact: z.string(),
    withdrawal_instructions: z.string(),
    version: z.int().openapi({ description: "0: the shipped default (never saved by the organization); each PUT saves the next version" }),
    sha256: z.string().openapi({ description: "SHA-256 (hex) of the version's canonical JSON (`required`, `text`, `paper_copy_contact`, `withdrawal_instructions`, `version`): named on each consent's audit entry" }),
    is_default: z.boolean().openapi({ description: "true while the organization has saved no disclosure of its own" }),
    created_at: z.string().nullable().openapi({ description: "When this version was saved; null for the shipped default" }),
  })
  .openapi("EsignDisclosure");
export type EsignDisclosure = z.infer<typeof EsignDisclosureSchema>;

/** What the signing page shows (GET /signing/:slug `consent`, POST /signing/:slug/consent). */
export const SignerConsentSchema = z
  .object({
    required: z.literal(true),
    given_at: z.string().nullable().openapi({ description: "When this signer consented; null until then" }),
    disclosure: z.object({ version: z.int(), text: z.string(), paper_copy_contact: z.string(), withdrawal_instructions: z.string() }),
  })
  .openapi("SignerConsent");
export type SignerConsent = z.infer<typeof SignerConsentSchema>;
