import type { Row } from "../../db/row";
import type { payments, stripeEvents } from "../../db/schema/payments";
import type { ShardDb } from "../../lib/shards";

/** A `payments` row as D1 returns it. */
export type PaymentRow = Row<typeof payments>;
export type StripeEventRow = Row<typeof stripeEvents>;

/** The payment requested on an envelope, or null (the envelope id is already org-checked by the caller). */
export function findPaymentForEnvelope(db: ShardDb, envelopeId: string): Promise<PaymentRow | null> {
  return db.prepare("SELECT * FROM payments WHERE envelope_id = ?").bind(envelopeId).first<PaymentRow>();
}

export function findPaymentByIntent(db: ShardDb, intentId: string): Promise<PaymentRow | null> {
  return db.prepare("SELECT * FROM payments WHERE stripe_payment_intent_id = ?").bind(intentId).first<PaymentRow>();
}

export function findPaymentById(db: ShardDb, paymentId: string): Promise<PaymentRow | null> {
  return db.prepare("SELECT * FROM payments WHERE id = ?").bind(paymentId).first<PaymentRow>();
}

/** The Stripe idempotency key of a payment's PaymentIntent: fixed, so every create returns the same intent. */
export const intentIdempotencyKey = (payment: Pick<PaymentRow, "id">) => `payment_intent:${payment.id}`;

/** Whether the signer is the payer of an unpaid payment on their envelope (`{ due: 1 }`), or null. */
export function findPaymentDueFromSigner(db: ShardDb, signerId: string): Promise<{ due: number } | null> {
  return db
    .prepare("SELECT 1 AS due FROM signers s JOIN payments p ON p.envelope_id = s.envelope_id WHERE s.id = ? AND p.status != 'paid' AND p.payer_email = lower(trim(s.email))")
    .bind(signerId)
    .first<{ due: number }>();
}

/** Whether the envelope has an unpaid payment (`{ due: 1 }`), or null. */
export function findPaymentDueOnEnvelope(db: ShardDb, envelopeId: string): Promise<{ due: number } | null> {
  return db.prepare("SELECT 1 AS due FROM payments WHERE envelope_id = ? AND status != 'paid'").bind(envelopeId).first<{ due: number }>();
}

/** The INSERT of a requested payment, for the envelope create's batch. */
export function paymentInsert(
  db: ShardDb,
  p: Pick<PaymentRow, "id" | "envelope_id" | "org_id" | "amount_cents" | "currency" | "payer_email" | "destination_account" | "application_fee_cents" | "platform_fee_bps"> & {
    at: string;
  },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO payments (id, envelope_id, org_id, amount_cents, currency, payer_email, destination_account,
         application_fee_cents, platform_fee_bps, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'requires_payment', ?, ?)`,
    )
    .bind(p.id, p.envelope_id, p.org_id, p.amount_cents, p.currency, p.payer_email, p.destination_account, p.application_fee_cents, p.platform_fee_bps, p.at, p.at);
}

/** Stores the payment's PaymentIntent id unless one is stored already (whichever racing call stores first wins). */
export function paymentIntentIdUpdate(db: ShardDb, paymentId: string, intentId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE payments SET stripe_payment_intent_id = ?, updated_at = ? WHERE id = ? AND stripe_payment_intent_id IS NULL").bind(intentId, at, paymentId);
}

/** Marks the payment paid, guarded on it still being `requires_payment`. */
export function paymentPaidUpdate(db: ShardDb, paymentId: string, intentId: string, at: string): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE payments SET status = 'paid', paid_at = ?, stripe_payment_intent_id = COALESCE(stripe_payment_intent_id, ?), updated_at = ?
       WHERE id = ? AND status = 'requires_payment'`,
    )
    .bind(at, intentId, at, paymentId);
}

/** Records a failed payment attempt on the payment, guarded on it still being `requires_payment`. */
export function paymentFailureUpdate(
  db: ShardDb,
  paymentId: string,
  failure: { intentId: string; code: string | null; message: string | null; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE payments SET failure_count = failure_count + 1, last_failure_code = ?, last_failure_message = ?, last_failed_at = ?,
         stripe_payment_intent_id = COALESCE(stripe_payment_intent_id, ?), updated_at = ?
       WHERE id = ? AND status = 'requires_payment'`,
    )
    .bind(failure.code, failure.message, failure.at, failure.intentId, failure.at, paymentId);
}

// ---- stripe_events ----

/** The outcome recorded for a Stripe event seen before, or null. */
export function findStripeEvent(db: ShardDb, eventId: string): Promise<Pick<StripeEventRow, "outcome"> | null> {
  return db.prepare("SELECT outcome FROM stripe_events WHERE id = ?").bind(eventId).first<Pick<StripeEventRow, "outcome">>();
}

/** Records a Stripe event as acted on or ignored; a second record of the same event changes nothing. */
export function stripeEventInsert(db: ShardDb, e: Omit<StripeEventRow, "received_at"> & { at: string }): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO stripe_events (id, type, payment_intent_id, payment_id, outcome, reason, received_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    )
    .bind(e.id, e.type, e.payment_intent_id, e.payment_id, e.outcome, e.reason, e.at);
}

// ---- appended by bulk send (helper B) ----

/** For a batch: the envelopes among `envelopeIds` (one JSON array) that have a payment, one row `{ envelope_id }` each. */
export function selectEnvelopesWithPayment(db: D1Database, envelopeIds: string): D1PreparedStatement {
  return db.prepare("SELECT envelope_id FROM payments WHERE envelope_id IN (SELECT value FROM json_each(?1))").bind(envelopeIds);
}
