import { SignJWT } from "jose";
import type { RequestContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { requireSecret } from "../../lib/secrets";
import { mintSigningSession } from "../signers/signing-session";
import { getEnvelope } from "../envelopes/repository";
import { PAYABLE_STATUSES } from "./payment-gate";
import { findSignerForPayment } from "../signers/repository";
import { assertConsentGiven } from "../signers/consent-gate";
import { assertCurrentSession } from "../signers/resolve-credential";
import { SIGNING_LINK_TTL_SECONDS, signingUrl } from "../signers/signing-links";
import { findPaymentForEnvelope } from "./repository";

export type SignerPaymentToken = { payment_required: false } | { payment_required: true; token: string; expires_at: string; return_url: string };

/**
 * POST /signing/:slug/payment-token: how the signing page, opened by a signer's slug, gets the
 * credential of POST /embed/payment-intent and /embed/payment-status (docs/decisions/sign-and-pay.md makes the embed
 * token that credential). For the designated payer, once they have signed and while the payment is
 * due, the slug is traded for a 15-minute `sign` embed token naming that signer, exactly what
 * POST /embed/token would mint for them. Anyone else, or nothing due: `payment_required: false`.
 *
 * Unlike the other slug routes it keeps working after the envelope completes (the payer is usually
 * the last to sign), but only while the payment is unpaid; an unknown slug is 404.
 *
 * `return_url` is where Stripe sends the payer back after a 3-D Secure redirect: the signer's page
 * under a signing session that ends with the token, so the permanent link never reaches the processor
 * (nor its logs and the browser history it writes).
 */
export async function signerPaymentToken(ctx: RequestContext, input: { signerId: string; now?: Date; notAfter?: number }): Promise<SignerPaymentToken> {
  const signer = await findSignerForPayment(ctx.db, input.signerId);
  if (!signer) throw notFound("Signing link");
  assertCurrentSession(ctx, signer);
  const envelope = await getEnvelope(ctx.db, signer.org_id, signer.envelope_id);
  // E-SIGN (docs/consumer-signing.md): no step of the envelope before the signer's consent
  assertConsentGiven(envelope, signer);
  const payment = await findPaymentForEnvelope(ctx.db, envelope.id);
  const due =
    payment !== null &&
    payment.status !== "paid" &&
    payment.payer_email === signer.email.trim().toLowerCase() &&
    signer.status === "completed" &&
    (PAYABLE_STATUSES as readonly string[]).includes(envelope.status);
  if (!due) return { payment_required: false };
  const secret = new TextEncoder().encode(requireSecret(ctx.env, "EMBED_TOKEN_SECRET"));
  const iat = Math.floor((input.now ?? new Date()).getTime() / 1000);
  // asked through an embedded signing session (`notAfter`, epoch seconds): the token ends with the session
  const exp = Math.min(iat + SIGNING_LINK_TTL_SECONDS, input.notAfter ?? Infinity);
  const token = await new SignJWT({ envelopeId: envelope.id, orgId: envelope.org_id, userEmail: signer.email, widgetType: "sign" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setAudience(ctx.env.EMBED_HOST)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(secret);
  const session = await mintSigningSession(ctx.env, { signerId: signer.id, expiresAt: exp });
  return { payment_required: true, token, expires_at: new Date(exp * 1000).toISOString(), return_url: signingUrl(ctx.env, envelope, session) };
}
