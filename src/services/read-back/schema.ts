import { z } from "@hono/zod-openapi";
import { KBA_CHECK_STATUSES, PAYMENT_STATUSES } from "../../db/schema";
import { ENVELOPE_EXAMPLE, EnvelopeSchema, Timestamp } from "../envelopes/schema";

/**
 * A signer as an envelope read shows it (docs/decisions/read-back.md): what the sender set and where the signer is.
 * The statuses are the partner's view of the signer, not the stored ones: `pending` until it is their
 * turn, `sent` once it is, then `viewed`, `completed` or `declined`.
 */
export const READ_BACK_SIGNER_STATUSES = ["pending", "sent", "viewed", "completed", "declined"] as const;

export const SignerOtpReadSchema = z
  .object({
    phone: z.string().nullable().openapi({ description: "The phone codes go to, masked (`+1******4567`)" }),
    verified: z.boolean().openapi({ description: "Whether the signer entered a right code" }),
    verified_at: Timestamp.nullable().openapi({ description: "When; null until then (a correction of the phone clears it)" }),
  })
  .openapi("SignerOtpState", { example: { phone: "+1******4567", verified: true, verified_at: "2026-11-23T09:32:10.000Z" } });

/** A nullable object written so that `null` validates against the document (OpenAPI 3.1: `anyOf` with `{ type: "null" }`). */
const orNull = <T extends z.ZodType>(schema: T, description: string) => z.union([schema, z.null()]).openapi({ description });

export const SignerConsentReadSchema = z
  .object({
    required: z.boolean().openapi({ description: "Always true where present: the envelope asks its signers for E-SIGN consent" }),
    given_at: Timestamp.nullable().openapi({ description: "When the signer consented; null until then (a correction clears it)" }),
    disclosure_version: z.int().nullable().openapi({ description: "The organization's disclosure version the envelope pinned at create (0: the shipped default)" }),
  })
  .openapi("SignerConsentState", { example: { required: true, given_at: null, disclosure_version: 3 } });

export const SignerKbaReadSchema = z
  .object({
    required: z.boolean().openapi({ description: "Whether this signer is challenged (the sender added as a signer never is)" }),
    status: z
      .enum(KBA_CHECK_STATUSES)
      .nullable()
      .openapi({ description: "`required` (not verified yet), `passed`, `failed` (no attempts left) or `unavailable`; null for a signer not challenged" }),
  })
  .openapi("SignerKbaState", { example: { required: true, status: "passed" } });

export const ReadBackSignerSchema = z
  .object({
    signer_id: z.string().openapi({ description: "`sgn_…`: names the signer in `…/signers/{signer_id}/resend` and `PATCH …/signers/{signer_id}`" }),
    name: z.string(),
    email: z.string(),
    role: z.string(),
    routing_order: z.int(),
    status: z.enum(READ_BACK_SIGNER_STATUSES).openapi({
      description: "`pending`: not yet their turn (an earlier routing order is still signing, or someone declined first); `sent`: their turn has come; `viewed`; `completed`; `declined`",
    }),
    sent_at: Timestamp.nullable().openapi({
      description: "When it became the signer's turn: the send for the first routing order, the last earlier signer's completion for later ones (whether or not an email went out)",
    }),
    viewed_at: Timestamp.nullable(),
    completed_at: Timestamp.nullable(),
    declined_at: Timestamp.nullable(),
    decline_reason: z.string().nullable().openapi({ description: "The signer's reason; `consent_withdrawn` when they refused consent to electronic records" }),
    consent: orNull(SignerConsentReadSchema, "E-SIGN consent; null when the envelope does not ask for it"),
    kba: orNull(SignerKbaReadSchema, "Identity verification; null when the envelope does not require KBA"),
    auth: z.enum(["sms_otp"]).nullable().openapi({ description: "How the signer proves they hold the link besides the email, as the send set it: `sms_otp`, or null (the link alone)" }),
    otp: orNull(SignerOtpReadSchema, "The SMS one-time passcode step; null for a signer without `auth: \"sms_otp\"`"),
  })
  .openapi("EnvelopeSigner", {
    example: {
      signer_id: "sgn_4k7q1c8v5b3n6p0r2t4w6y9x2m",
      name: "Jane Doe",
      email: "jane.doe@example.com",
      role: "buyer",
      routing_order: 1,
      status: "sent",
      sent_at: "2026-11-23T09:31:12.345Z",
      viewed_at: null,
      completed_at: null,
      declined_at: null,
      decline_reason: null,
      consent: null,
      kba: null,
      auth: null,
      otp: null,
    },
  });

export const ReminderScheduleSchema = z
  .object({
    after_days: z.int().openapi({ description: "Days after sending before the first reminder (the envelope's own, else the organization's default)" }),
    every_days: z.int().openapi({ description: "Days between later reminders; 0: one reminder only" }),
    next_at: Timestamp.nullable().openapi({
      description: "When the next reminder is due (the cron sends it at its next run after that); null when none will be: not out for signing, the reminders are used up, or the next would fall after `expires_at`",
    }),
  })
  .openapi("ReminderSchedule", { example: { after_days: 3, every_days: 2, next_at: "2026-11-26T09:31:12.345Z" } });

export const PaymentStateSchema = z
  .object({
    status: z.enum(PAYMENT_STATUSES),
    amount: z.int().openapi({ description: "In the currency's smallest unit: the `amount_cents` of the create" }),
    currency: z.string().openapi({ example: "usd" }),
    payer_email: z.string().openapi({ description: "The signer who pays" }),
    paid_at: Timestamp.nullable(),
  })
  .openapi("PaymentState", { example: { status: "requires_payment", amount: 150000, currency: "usd", payer_email: "jane.doe@example.com", paid_at: null } });

export const ENVELOPE_DETAIL_EXAMPLE = { ...ENVELOPE_EXAMPLE, signers: [], reminders: null, payment: null };

/** GET /partner/envelopes/{id}: the Envelope and what the sender set on it, read back (docs/decisions/read-back.md). */
export const EnvelopeDetailSchema = EnvelopeSchema.extend({
  signers: z.array(ReadBackSignerSchema).openapi({ description: "In signing order; empty until the envelope is sent (signers are attached by the send)" }),
  reminders: orNull(ReminderScheduleSchema, "The reminder schedule in force; null when neither the envelope nor the organization sets one"),
  payment: orNull(PaymentStateSchema, "Sign + Pay: the payment requested at create; null when none"),
}).openapi("EnvelopeDetail", { example: ENVELOPE_DETAIL_EXAMPLE });

/** One entry of an envelope's audit chain, as GET …/events shows it. */
export const TimelineEntrySchema = z
  .object({
    id: z.string().openapi({ description: "The entry's id (`aud_…`)" }),
    org_id: z.string(),
    chain_id: z.string().openapi({ description: "The envelope's id: its chain" }),
    seq: z.int().openapi({ description: "1 for the first entry, then one more per entry" }),
    action: z.string().openapi({ example: "envelope.send" }),
    at: Timestamp,
    actor: z
      .object({
        type: z.string().openapi({ description: "`api_key`, `user`, `signer`, `system`, `operator`…" }),
        id: z.string().nullable(),
        ip: z.string().nullable(),
        user_agent: z.string().nullable(),
      })
      .openapi({ description: "Who did it, with the address and user agent recorded for it" }),
    data: z.record(z.string(), z.unknown()).openapi({ description: "What the entry records (never a signing credential or link)" }),
    prev_hash: z.string().openapi({ description: "The previous entry's `hash`; 64 zeros for the first entry" }),
    hash: z.string().openapi({
      description:
        "SHA-256 (hex) of the canonical JSON (keys sorted, no whitespace) of { id, org_id, chain_id, seq, action, actor_type: actor.type, actor_id: actor.id, ip: actor.ip, user_agent: actor.user_agent, data, created_at: at, prev_hash }",
    }),
  })
  .openapi("EnvelopeEvent", {
    example: {
      id: "aud_7m2q9x4c1v8b5n3k6p0r2t4w6y",
      org_id: "org_2b4d6f8h0j2l4n6p8r0t2v4x6z",
      chain_id: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y",
      seq: 1,
      action: "envelope.created",
      at: "2026-11-23T09:30:00.000Z",
      actor: { type: "api_key", id: "key_1a2b3c4d5e6f7g8h9j0k1m2n3p", ip: null, user_agent: null },
      data: { envelope_name: "Retail installment contract #1042", document_source: "new" },
      prev_hash: "0000000000000000000000000000000000000000000000000000000000000000",
      hash: "5d1c0e0b6f3c6a2e9e1f4b7a8d2c3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d",
    },
  });

export const TimelineQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).openapi({ example: 1 }),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ example: 20 }),
});
