import { z } from "@hono/zod-openapi";
import { ENVELOPE_EXAMPLE, EnvelopeSchema } from "../envelopes/schema";

export const MAX_SIGNERS = 50;
export const MAX_ROUTING_ORDER = 100;
export const SIGNER_STATUSES = ["pending", "viewed", "started", "completed", "declined"] as const;
/** E.164: `+`, a country code and the number, 8 to 16 characters in all. */
export const PHONE_PATTERN = /^\+[1-9]\d{6,14}$/;
/** How a signer proves they hold the link besides the email (docs/decisions/sms-otp.md); KBA is the envelope's, not the signer's. */
export const SIGNER_AUTHS = ["sms_otp"] as const;

const SignerInput = z
  .object({
    role: z.string().trim().min(1).max(100).openapi({ description: "A role named by the envelope's fields" }),
    email: z.email().max(254),
    name: z.string().trim().min(1).max(200),
    routing_order: z
      .int()
      .min(1)
      .max(MAX_ROUTING_ORDER)
      .optional()
      .openapi({ description: "Signing order: lower signs first, equal orders sign in parallel. Default: the signer's position in the array (1, 2, …)" }),
    phone: z.string().regex(PHONE_PATTERN, "an E.164 phone number such as +15551234567").optional().openapi({ description: "E.164 (`+15551234567`); required with `auth: \"sms_otp\"`" }),
    auth: z.enum(SIGNER_AUTHS).optional().openapi({
      description:
        "`sms_otp`: before the document (after KBA, before consent) the signer asks for a 6-digit code texted to `phone` (POST /signing/{slug}/otp) and enters it (POST /signing/{slug}/otp/verify); until then the document, view, consent and submit answer 403 `otp_required`. Omitted: the link alone",
    }),
  })
  .superRefine((s, ctx) => {
    if (s.auth === "sms_otp" && !s.phone) ctx.addIssue({ code: "custom", path: ["phone"], message: "auth sms_otp needs the signer's phone (E.164, such as +15551234567)" });
  })
  .openapi("SignerInput");

export const SendEnvelopeBody = z
  .object({
    send_email: z.boolean().default(true).openapi({ description: "Email each signer an invitation when it is their turn. `false`: you hand out the signing links yourself (refused for KBA envelopes)" }),
    signers: z
      .array(SignerInput)
      .min(1)
      .max(MAX_SIGNERS)
      .optional()
      .openapi({ description: "One signer per role of the envelope's fields. Omitted: the envelope's customer signs its single role" }),
  })
  .openapi("SendEnvelope", {
    example: {
      send_email: true,
      signers: [
        { role: "buyer", email: "jane.doe@example.com", name: "Jane Doe", routing_order: 1 },
        { role: "co_buyer", email: "john.doe@example.com", name: "John Doe", routing_order: 1 },
        { role: "dealer", email: "finance@dealer.example", name: "Dealer Finance", routing_order: 2 },
      ],
    },
  });
export type SendEnvelopeInput = z.infer<typeof SendEnvelopeBody>;

const linkFields = {
  signer_id: z.string().openapi({ description: "The signer (`sgn_…`): names them in `…/signers/{signer_id}/resend` and `PATCH …/signers/{signer_id}`" }),
  email: z.string(),
  name: z.string(),
  role: z.string(),
  routing_order: z.int(),
  slug: z.string().openapi({
    description:
      "A short-lived signing session (`es_…`) standing for the signer's slug until `expires_at`: usable as `{slug}` in the signer API, 410 `signing_session_expired` after. Never the permanent slug, which only the invitation email carries; never build a URL from it",
  }),
  status: z.enum(SIGNER_STATUSES),
  expires_at: z.string().openapi({ description: "When this link stops working (15 minutes after the response); ask again for a fresh one" }),
  view_only: z.boolean().openapi({ description: "True when the caller's key lacks `esign:write`: the session shows what the signer sees and acts on nothing (403 `view_only_session`)" }),
};
const SESSION_EXAMPLE = "es_Q2xvdWRmbGFyZSBzaWduaW5nIHNlc3Npb24gZXhhbXBsZSwgbm90IGEgcmVhbCBjcmVkZW50aWFs";
const linkExample = { signer_id: "sgn_4k7q1c8v5b3n6p0r2t4w6y9x2m", email: "jane.doe@example.com", name: "Jane Doe", role: "buyer", routing_order: 1, slug: SESSION_EXAMPLE, status: "pending", expires_at: "2026-11-23T09:45:00.000Z", view_only: false };
const linkUrlExample = `https://embed.example.com/s/${SESSION_EXAMPLE}`;

/** A signing link as partners see it (spec part 2): the URL on the embed host (signing host for KBA). */
export const SigningLinkSchema = z
  .object({ ...linkFields, embed_url: z.string().openapi({ description: "Opaque, on the embed host (the signing host for KBA envelopes); works until `expires_at`; read it from here, never assemble it" }) })
  .openapi("SigningLink", { example: { ...linkExample, embed_url: linkUrlExample } });

/** The console's variant names the same URL `signing_url` (spec part 2). */
export const SessionSigningLinkSchema = z
  .object({ ...linkFields, signing_url: z.string().openapi({ description: "Opaque; works until `expires_at`; read it from here, never assemble it" }) })
  .openapi("SessionSigningLink", { example: { ...linkExample, signing_url: linkUrlExample } });

export const SigningLinksSchema = z.object({ signers: z.array(SigningLinkSchema) }).openapi("SigningLinks");
export const SessionSigningLinksSchema = z.object({ signers: z.array(SessionSigningLinkSchema) }).openapi("SessionSigningLinks");

const sentExample = { ...ENVELOPE_EXAMPLE, status: "sent" };
export const SentEnvelopeSchema = EnvelopeSchema.extend({ signers: z.array(SigningLinkSchema) }).openapi("SentEnvelope", {
  example: { ...sentExample, signers: [{ ...linkExample, embed_url: linkUrlExample }] },
});
export const SessionSentEnvelopeSchema = EnvelopeSchema.extend({ signers: z.array(SessionSigningLinkSchema) }).openapi("SessionSentEnvelope", {
  example: { ...sentExample, signers: [{ ...linkExample, signing_url: linkUrlExample }] },
});
