import { conflict } from "../../lib/errors";
import type { EnvelopeRow } from "../envelopes/repository";

/**
 * Spec 4.5: vault-in is refused with 409 while a payment requested on the envelope (Sign + Pay) is
 * not yet paid; the authoritative copy is never created before payment settles. Payments are not
 * built yet, so no envelope has a requested payment and this never refuses. When they are, only
 * `findUnpaidPayment` changes: it reads the envelope's payment and returns it unless `paid`.
 */
export async function assertNoUnpaidPayment(db: D1Database, envelope: EnvelopeRow): Promise<void> {
  const unpaid = await findUnpaidPayment(db, envelope);
  if (unpaid) {
    throw conflict("A payment requested on this envelope has not been paid yet; it can be vaulted once the payment settles", {
      payment_status: unpaid.status,
    });
  }
}

async function findUnpaidPayment(_db: D1Database, _envelope: EnvelopeRow): Promise<{ status: string } | null> {
  return null;
}
