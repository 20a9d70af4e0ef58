import Stripe from "stripe";
import {
  PaymentProcessorError,
  WebhookSignatureError,
  type CreateIntentInput,
  type PaymentProcessor,
  type ProcessorEvent,
  type ProcessorIntent,
} from "./interface";

/** Stripe's own webhook tolerance: a signature older than 5 minutes is refused (a replay). */
const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * Sign + Pay through the real `stripe` package in the Workers runtime: its fetch HTTP client (no
 * Node `http`), and its SubtleCrypto provider for webhook signatures (`constructEventAsync`).
 * `apiBase` (STRIPE_API_BASE) only points the client at a local stand-in in tests and development;
 * production leaves it unset and the client talks to https://api.stripe.com.
 */
export class StripeProcessor implements PaymentProcessor {
  private readonly stripe: Stripe;

  constructor(secretKey: string, apiBase?: string) {
    const target = apiBase ? new URL(apiBase) : null;
    this.stripe = new Stripe(secretKey, {
      httpClient: Stripe.createFetchHttpClient(),
      // idempotency keys make the client's own retries safe
      maxNetworkRetries: 2,
      timeout: 10_000,
      telemetry: false,
      ...(target
        ? {
            host: target.hostname,
            port: target.port || (target.protocol === "https:" ? "443" : "80"),
            protocol: target.protocol === "https:" ? "https" : "http",
          }
        : {}),
    });
  }

  async createPaymentIntent(input: CreateIntentInput): Promise<ProcessorIntent> {
    return this.call(() =>
      this.stripe.paymentIntents.create(
        {
          amount: input.amountCents,
          currency: input.currency,
          automatic_payment_methods: { enabled: true },
          transfer_data: { destination: input.destinationAccount },
          application_fee_amount: input.applicationFeeCents,
          metadata: input.metadata,
          description: input.description,
          receipt_email: input.receiptEmail,
        },
        { idempotencyKey: input.idempotencyKey },
      ),
    );
  }

  async retrievePaymentIntent(id: string): Promise<ProcessorIntent> {
    return this.call(() => this.stripe.paymentIntents.retrieve(id));
  }

  verifyWebhook(rawBody: string, signatureHeader: string | undefined, secret: string): Promise<ProcessorEvent> {
    return verifyStripeWebhook(rawBody, signatureHeader, secret);
  }

  private async call(request: () => Promise<unknown>): Promise<ProcessorIntent> {
    try {
      return toIntent(await request());
    } catch (err) {
      throw translate(err);
    }
  }
}

function toIntent(raw: unknown): ProcessorIntent {
  const pi = raw as ProcessorIntent;
  return {
    id: pi.id,
    client_secret: pi.client_secret ?? null,
    amount: pi.amount,
    currency: pi.currency,
    status: pi.status,
    metadata: pi.metadata ?? {},
    last_payment_error: pi.last_payment_error ?? null,
  };
}

function translate(err: unknown): PaymentProcessorError {
  if (err instanceof Stripe.errors.StripeAuthenticationError || err instanceof Stripe.errors.StripePermissionError) {
    return new PaymentProcessorError("authentication", err.message, err.code ?? null);
  }
  if (err instanceof Stripe.errors.StripeInvalidRequestError || err instanceof Stripe.errors.StripeIdempotencyError || err instanceof Stripe.errors.StripeCardError) {
    return new PaymentProcessorError("invalid_request", err.message, err.code ?? null);
  }
  return new PaymentProcessorError("unavailable", err instanceof Error ? err.message : String(err));
}

/**
 * Stripe's webhook check through the library: `Stripe-Signature: t=<unix seconds>,v1=<hex>` where v1 is
 * HMAC-SHA256 of `<t>.<raw body>` keyed by STRIPE_WEBHOOK_SECRET, compared in constant time, with `t` no
 * older than 5 minutes; SubtleCrypto, as the Workers runtime has no Node crypto. Needs no API key.
 */
export async function verifyStripeWebhook(rawBody: string, signatureHeader: string | undefined, secret: string): Promise<ProcessorEvent> {
  if (!signatureHeader) throw new WebhookSignatureError("Missing Stripe-Signature header");
  let event: { id?: unknown; type?: unknown; data?: { object?: unknown } };
  try {
    event = (await Stripe.webhooks.constructEventAsync(
      rawBody,
      signatureHeader,
      secret,
      WEBHOOK_TOLERANCE_SECONDS,
      Stripe.createSubtleCryptoProvider(),
    )) as unknown as typeof event;
  } catch (err) {
    throw new WebhookSignatureError(err instanceof Error ? err.message : "Invalid Stripe-Signature");
  }
  const object = event?.data?.object;
  if (typeof event?.id !== "string" || typeof event.type !== "string" || !object || typeof object !== "object") {
    throw new WebhookSignatureError("The signed body is not a Stripe event");
  }
  return { id: event.id, type: event.type, object: object as Record<string, unknown> };
}
