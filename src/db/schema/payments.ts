import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { envelopes } from "./envelopes";

export const PAYMENT_STATUSES = ["requires_payment", "paid"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * Sign + Pay (spec 1.8, docs/decisions/sign-and-pay.md): the one-time payment requested from a designated signer when
 * the envelope was created. Everything the Stripe PaymentIntent is created from is fixed here at
 * create time (amount, currency, the connected account and the application fee), so the intent's
 * idempotency key (`payment_intent:<id>`) always goes with the same parameters. `status` moves from
 * `requires_payment` to `paid` only on Stripe's verified `payment_intent.succeeded`; until then the
 * envelope cannot be vaulted.
 */
export const payments = sqliteTable(
  "payments",
  {
    /** `pay_…` */
    id: text("id").primaryKey(),
    envelopeId: text("envelope_id").notNull().references(() => envelopes.id),
    orgId: text("org_id").notNull(),
    /** in the currency's smallest unit, as Stripe's `amount` */
    amountCents: integer("amount_cents").notNull(),
    /** lower-case ISO 4217 */
    currency: text("currency").notNull(),
    /** normalized (trimmed, lower case); must be one of the envelope's signers by send time */
    payerEmail: text("payer_email").notNull(),
    /** the organization's connected account at create: the charge's `transfer_data.destination` */
    destinationAccount: text("destination_account").notNull(),
    /** floor(amount x platform_fee_bps / 10,000) at create: the charge's `application_fee_amount` */
    applicationFeeCents: integer("application_fee_cents").notNull(),
    platformFeeBps: integer("platform_fee_bps").notNull(),
    status: text("status", { enum: PAYMENT_STATUSES }).notNull().default("requires_payment"),
    stripePaymentIntentId: text("stripe_payment_intent_id"),
    paidAt: text("paid_at"),
    /** the last `payment_intent.payment_failed`: recorded, the payment stays `requires_payment` */
    failureCount: integer("failure_count").notNull().default(0),
    lastFailureCode: text("last_failure_code"),
    lastFailureMessage: text("last_failure_message"),
    lastFailedAt: text("last_failed_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("payments_envelope_uq").on(t.envelopeId),
    uniqueIndex("payments_intent_uq").on(t.stripePaymentIntentId),
    index("payments_org_idx").on(t.orgId),
  ],
);

/**
 * Every Stripe event the webhook acted on or deliberately ignored, by Stripe's event id: a re-sent
 * event (Stripe retries until it gets a 2xx, and may deliver twice) is recognised and changes nothing.
 */
export const stripeEvents = sqliteTable(
  "stripe_events",
  {
    /** Stripe's `evt_…` */
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    paymentIntentId: text("payment_intent_id"),
    paymentId: text("payment_id"),
    /** `paid`, `failure_recorded`, `ignored` */
    outcome: text("outcome").notNull(),
    reason: text("reason"),
    receivedAt: text("received_at").notNull(),
  },
  (t) => [index("stripe_events_payment_idx").on(t.paymentId)],
);
