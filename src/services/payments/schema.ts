import { z } from "@hono/zod-openapi";
import { CURRENCIES, CURRENCY_MINIMUMS, MAX_AMOUNT } from "./currencies";

/** `payment` on POST /partner/envelopes (docs/decisions/sign-and-pay.md). */
export const PaymentRequestSchema = z
  .object({
    amount_cents: z
      .int()
      .positive()
      .max(MAX_AMOUNT)
      .openapi({ description: `A positive integer in the currency's smallest unit (cents), at most ${MAX_AMOUNT.toLocaleString("en-US")} (Stripe's limit) and at least Stripe's minimum for the currency (50 for usd)`, example: 150000 }),
    currency: z
      .enum(CURRENCIES)
      .openapi({ description: "Lower-case ISO 4217 code of a currency Stripe settles in", example: "usd" }),
    payer_email: z.email().max(254).openapi({ description: "The signer who pays: must be one of the envelope's signers when it is sent", example: "jane.doe@example.com" }),
  })
  .superRefine((p, ctx) => {
    const min = CURRENCY_MINIMUMS[p.currency];
    if (min !== undefined && p.amount_cents < min) {
      ctx.addIssue({
        code: "too_small",
        origin: "number",
        minimum: min,
        inclusive: true,
        input: p.amount_cents,
        path: ["amount_cents"],
        message: `Stripe's minimum charge in ${p.currency} is ${min}`,
      });
    }
  })
  .openapi("PaymentRequest", { example: { amount_cents: 150000, currency: "usd", payer_email: "jane.doe@example.com" } });
export type PaymentRequest = z.infer<typeof PaymentRequestSchema>;

export const PaymentIntentSchema = z
  .object({
    payment_required: z.boolean(),
    client_secret: z.string().optional().openapi({ description: "Give it to Stripe's Payment Element (`elements({ clientSecret })`)" }),
    publishable_key: z.string().optional(),
    amount_cents: z.int().optional(),
    currency: z.string().optional(),
    status: z.literal("requires_payment").optional(),
  })
  .openapi("PaymentIntent", {
    example: {
      payment_required: true,
      client_secret: "pi_3Q0aBcDeFgHiJkLm_secret_NoPqRsTuVwXyZ",
      publishable_key: "pk_live_51Nv0FG…",
      amount_cents: 150000,
      currency: "usd",
      status: "requires_payment",
    },
  });

export const PaymentStatusSchema = z
  .object({
    status: z
      .enum(["requires_payment", "paid"])
      .nullable()
      .openapi({ description: "`paid` once Stripe's payment_intent.succeeded arrived; `requires_payment` before; null when the envelope requests no payment" }),
  })
  .openapi("PaymentStatus", { example: { status: "paid" } });
