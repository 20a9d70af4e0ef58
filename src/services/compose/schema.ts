import { z } from "@hono/zod-openapi";
import { LocaleSchema } from "../i18n/schema";
import { PaymentRequestSchema } from "../payments/schema";
import { CcRecipientSchema, SecuredPartySchema } from "../envelopes/schema";

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);
const noPrototypeKeys = (value: Record<string, unknown>) => Object.keys(value).every((k) => !FORBIDDEN_KEYS.has(k));

export const CreateEnvelopeBody = z
  .object({
    envelope_name: z.string().trim().min(1).max(200),
    customer_email: z.email().max(254),
    customer_name: z.string().trim().min(1).max(200),
    template_id: z.string().min(1).max(64).optional(),
    external_id: z.string().min(1).max(200).optional(),
    prefilled_data: z
      .record(z.string().max(200), z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]))
      .refine(noPrototypeKeys, { message: "prefilled_data may not use the keys __proto__, constructor or prototype" })
      .refine((v) => Object.keys(v).length <= 500, { message: "prefilled_data holds at most 500 fields" })
      .optional()
      .openapi({ description: "Template field values by field name", example: { vehicle_vin: "1HGCM82633A004352" } }),
    secured_party: SecuredPartySchema.optional(),
    document_source: z
      .enum(["new", "upload"])
      .optional()
      .openapi({ description: "`new` (default): a document to be signed here; `upload`: paper signed elsewhere, vaulted through vault-in-upload" }),
    expires_in_days: z.int().min(1).max(365).optional().openapi({ description: "Days a sent envelope stays open for signing (default 30)" }),
    reminder_after_days: z
      .int()
      .min(1)
      .max(30)
      .optional()
      .openapi({ description: "Days after sending before the first reminder email to the signers whose turn it is and who have not signed (1 to 30; default: the organization's, else no reminders)" }),
    reminder_every_days: z
      .int()
      .min(0)
      .max(30)
      .optional()
      .openapi({ description: "Days between later reminders (1 to 30; 0: remind once; default: the organization's, else once)" }),
    locale: LocaleSchema.optional().openapi({
      description:
        "The signers' language (`en`, `es`): the signing page, every email to the signers and the shipped E-SIGN disclosure (an organization's own disclosure of that locale when it saved one). Default: the organization's `default_locale` (GET /org/settings), else `en`.",
    }),
    consumer_consent: z
      .boolean()
      .optional()
      .openapi({
        description:
          "E-SIGN consumer consent (15 U.S.C. §7001(c)): each signer is shown the organization's disclosure and must consent (POST /signing/{slug}/consent) before the document opens. Default: the organization's `required` (GET /org/esign-disclosure). The envelope keeps the disclosure version current at create.",
      }),
    cc: z
      .array(CcRecipientSchema)
      .max(10)
      .superRefine((list, ctx) => {
        // one entry per address (compared trimmed, case-insensitively): a second is a mistake, not a second copy
        const seen = new Map<string, number>();
        list.forEach((r, i) => {
          const key = r.email.trim().toLowerCase();
          if (seen.has(key)) ctx.addIssue({ code: "custom", path: [i, "email"], message: `cc lists ${key} twice (also at cc[${seen.get(key)}])` });
          else seen.set(key, i);
        });
      })
      .optional()
      .openapi({
        description:
          "Up to 10 recipients who get the completed copy by email (a link to the sealed PDF, valid 30 days after completion) and never a signing link. Each address once; an address that is also a signer's gets one email, the signer's.",
      }),
    payment: PaymentRequestSchema.optional().openapi({
      description:
        "Sign + Pay: a one-time payment the designated signer (`payer_email`) makes on the signing page after signing, a destination charge to the organization's connected Stripe account. The envelope cannot be vaulted until it is paid. Needs the organization's `stripe_account_id` and `platform_fee_bps` (422 naming what is missing) and payments configured (503).",
    }),
  })
  .openapi("CreateEnvelope", {
    example: {
      envelope_name: "Retail installment contract #1042",
      customer_email: "jane.doe@example.com",
      customer_name: "Jane Doe",
      external_id: "deal-1042",
      secured_party: { name: "First Auto Finance LLC", role: "lender" },
    },
  });
export type CreateEnvelopeInput = z.infer<typeof CreateEnvelopeBody>;
