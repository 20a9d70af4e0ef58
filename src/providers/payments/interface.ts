/**
 * The little of a payment processor that Sign + Pay calls (docs/decisions/sign-and-pay.md): create a PaymentIntent as a
 * destination charge (idempotently), read one back, and verify an inbound webhook notification. The
 * one implementation is Stripe's own client (`stripe.ts`); tests point it at a local stand-in that
 * speaks Stripe's wire format (test/global/stripe-stand-in.mjs), so nothing here is mocked.
 */

export type PaymentIntentStatus =
  | "requires_payment_method"
  | "requires_confirmation"
  | "requires_action"
  | "processing"
  | "requires_capture"
  | "canceled"
  | "succeeded";

/** What the service reads of a PaymentIntent (a subset of Stripe's object). */
export type ProcessorIntent = {
  id: string;
  client_secret: string | null;
  amount: number;
  currency: string;
  status: PaymentIntentStatus | string;
  metadata: Record<string, string>;
  last_payment_error?: { code?: string | null; message?: string | null } | null;
};

export type CreateIntentInput = {
  amountCents: number;
  currency: string;
  /** the organization's connected account: `transfer_data.destination` */
  destinationAccount: string;
  /** the platform's fee: `application_fee_amount` */
  applicationFeeCents: number;
  metadata: Record<string, string>;
  description: string;
  receiptEmail: string;
  /** fixed per payment, so a retried or concurrent create returns the same intent */
  idempotencyKey: string;
};

/** A verified inbound notification: Stripe's event id, type and the object it carries. */
export type ProcessorEvent = { id: string; type: string; object: Record<string, unknown> };

/**
 * Why the processor refused or failed a call, without the processor's own error classes:
 * `invalid_request` (it refused these parameters), `authentication` (the secret key), `unavailable`
 * (network, timeout, 5xx, rate limit).
 */
export class PaymentProcessorError extends Error {
  constructor(
    readonly kind: "invalid_request" | "authentication" | "unavailable",
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** The webhook's signature header was missing, forged, for another secret or too old. */
export class WebhookSignatureError extends Error {}

export interface PaymentProcessor {
  createPaymentIntent(input: CreateIntentInput): Promise<ProcessorIntent>;
  retrievePaymentIntent(id: string): Promise<ProcessorIntent>;
  /** Verifies the raw body against the signature header; throws WebhookSignatureError. */
  verifyWebhook(rawBody: string, signatureHeader: string | undefined, secret: string): Promise<ProcessorEvent>;
}
