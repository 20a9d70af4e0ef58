import type { RequestContext } from "../../lib/context";
import { forbidden } from "../../lib/errors";
import { assertEmbedTarget, type EmbedClaims, type WidgetType } from "./tokens";
import { findEnvelope, type LoadedEnvelope } from "../envelopes/repository";
import { findPaymentForEnvelope, type PaymentRow } from "../payments/repository";

export { PAYABLE_STATUSES } from "../payments/payment-gate";

export type EmbedPaymentContext = { claims: EmbedClaims; envelope: LoadedEnvelope; payment: PaymentRow | null };

/**
 * The envelope and payment of POST /embed/payment-intent and /embed/payment-status (docs/decisions/sign-and-pay.md): the
 * embed token, already verified by the embed host's auth (401 otherwise), names the envelope and its
 * organization; nothing comes from the request. `widget` restricts the token kind (403 for another).
 * An envelope that no longer exists in the token's organization is 403, like a token for another one.
 */
export async function loadEmbedPayment(ctx: RequestContext, claims: EmbedClaims, widget?: WidgetType): Promise<EmbedPaymentContext> {
  if (widget) assertEmbedTarget(claims, { widgetType: widget });
  const envelope = await findEnvelope(ctx.db, claims.orgId, claims.envelopeId);
  if (!envelope) throw forbidden("This embed token is for an envelope that does not exist");
  const payment = await findPaymentForEnvelope(ctx.db, envelope.id);
  return { claims, envelope, payment };
}
