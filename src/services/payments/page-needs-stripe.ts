import type { RequestContext } from "../../lib/context";

/**
 * Whether the signing page should load Stripe.js (and allow it in its CSP): for a signer's link, only
 * when that signer is the payer of an unpaid payment; for the embedded sign widget (whose signer is
 * known only from the token in the fragment), when the envelope has an unpaid payment. Otherwise the
 * page is served exactly as without Sign + Pay.
 */
export async function pageNeedsStripe(ctx: RequestContext, page: { signerId: string } | { envelopeId: string }): Promise<boolean> {
  const { db } = ctx;
  if ("signerId" in page) {
    const row = await db
      .prepare("SELECT 1 AS due FROM signers s JOIN payments p ON p.envelope_id = s.envelope_id WHERE s.id = ? AND p.status != 'paid' AND p.payer_email = lower(trim(s.email))")
      .bind(page.signerId)
      .first<{ due: number }>();
    return row !== null;
  }
  const row = await db.prepare("SELECT 1 AS due FROM payments WHERE envelope_id = ? AND status != 'paid'").bind(page.envelopeId).first<{ due: number }>();
  return row !== null;
}
