import { conflict, PAYMENT_PENDING } from "../../lib/errors";
import type { EnvelopeRow } from "../envelopes/repository";
import { findPaymentForEnvelope } from "./repository";
import type { ShardDb } from "../../lib/shards";

/**
 * Spec 4.5: vault-in is refused with 409 while a payment requested on the envelope (Sign + Pay) is
 * not yet paid; the authoritative copy is never created before payment settles. The same gate
 * refuses auto-vault (which then waits for the payment: the Stripe webhook runs it once paid) and
 * the vault widget's embed token.
 */
export async function assertNoUnpaidPayment(db: ShardDb, envelope: EnvelopeRow): Promise<void> {
  const unpaid = await findUnpaidPayment(db, envelope);
  if (unpaid) {
    throw conflict(
      "A payment requested on this envelope has not been paid yet; it can be vaulted once the payment settles",
      { payment_status: unpaid.status },
      PAYMENT_PENDING,
    );
  }
}

/** The envelope's requested payment unless it is `paid`; null when none was requested or it is paid. */
export async function findUnpaidPayment(db: ShardDb, envelope: Pick<EnvelopeRow, "id">): Promise<{ status: string } | null> {
  const payment = await findPaymentForEnvelope(db, envelope.id);
  return payment && payment.status !== "paid" ? { status: payment.status } : null;
}

/** Envelope statuses in which the payer may still pay: signing under way or done, not closed otherwise. */
export const PAYABLE_STATUSES = ["sent", "viewed", "completed"] as const;
