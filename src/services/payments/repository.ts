import type { PaymentStatus } from "../../db/schema";

/** A `payments` row as D1 returns it. */
export type PaymentRow = {
  id: string;
  envelope_id: string;
  org_id: string;
  amount_cents: number;
  currency: string;
  payer_email: string;
  destination_account: string;
  application_fee_cents: number;
  platform_fee_bps: number;
  status: PaymentStatus;
  stripe_payment_intent_id: string | null;
  paid_at: string | null;
  failure_count: number;
  last_failure_code: string | null;
  last_failure_message: string | null;
  last_failed_at: string | null;
  created_at: string;
  updated_at: string;
};

/** The payment requested on an envelope, or null (the envelope id is already org-checked by the caller). */
export function findPaymentForEnvelope(db: D1Database, envelopeId: string): Promise<PaymentRow | null> {
  return db.prepare("SELECT * FROM payments WHERE envelope_id = ?").bind(envelopeId).first<PaymentRow>();
}

export function findPaymentByIntent(db: D1Database, intentId: string): Promise<PaymentRow | null> {
  return db.prepare("SELECT * FROM payments WHERE stripe_payment_intent_id = ?").bind(intentId).first<PaymentRow>();
}

export function findPaymentById(db: D1Database, paymentId: string): Promise<PaymentRow | null> {
  return db.prepare("SELECT * FROM payments WHERE id = ?").bind(paymentId).first<PaymentRow>();
}

/** The Stripe idempotency key of a payment's PaymentIntent: fixed, so every create returns the same intent. */
export const intentIdempotencyKey = (payment: Pick<PaymentRow, "id">) => `payment_intent:${payment.id}`;
