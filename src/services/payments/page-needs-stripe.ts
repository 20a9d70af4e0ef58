import { onShardOf, type RequestContext } from "../../lib/context";
import { findPaymentDueFromSigner, findPaymentDueOnEnvelope } from "./repository";

/**
 * Whether the signing page should load Stripe.js (and allow it in its CSP): for a signer's link, only
 * when that signer is the payer of an unpaid payment; for the embedded sign widget (whose signer is
 * known only from the token in the fragment), when the envelope has an unpaid payment. Otherwise the
 * page is served exactly as without Sign + Pay. The pages name no record in a route parameter the
 * shard middleware reads: the signer's or envelope's id names the shard read here.
 */
export async function pageNeedsStripe(ctx: RequestContext, page: { signerId: string } | { envelopeId: string }): Promise<boolean> {
  const { db } = onShardOf(ctx, "signerId" in page ? page.signerId : page.envelopeId);
  if ("signerId" in page) {
    const row = await findPaymentDueFromSigner(db, page.signerId);
    return row !== null;
  }
  const row = await findPaymentDueOnEnvelope(db, page.envelopeId);
  return row !== null;
}
