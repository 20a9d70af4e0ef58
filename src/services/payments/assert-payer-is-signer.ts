import { unprocessable } from "../../lib/errors";
import { findPaymentForEnvelope } from "./repository";
import type { ShardDb } from "../../lib/shards";

/**
 * At send (docs/decisions/sign-and-pay.md): the payer named at create must be one of the signers being attached,
 * otherwise nobody could ever pay and the envelope could never be vaulted. 422 naming the payer.
 */
export async function assertPayerIsSigner(db: ShardDb, envelopeId: string, signerEmails: string[]): Promise<void> {
  const payment = await findPaymentForEnvelope(db, envelopeId);
  if (!payment) return;
  if (signerEmails.some((email) => email.trim().toLowerCase() === payment.payer_email)) return;
  throw unprocessable("The payment's payer must be one of the envelope's signers", [
    {
      code: "invalid_value",
      expected: `a signer with email ${payment.payer_email}`,
      received: signerEmails.join(", "),
      path: ["signers"],
      message: `payer_email ${payment.payer_email} (from the envelope's payment) is not one of the signers`,
    },
  ]);
}
