import { badRequest } from "../../lib/errors";
import { onShard, onShardOf, type RequestContext } from "../../lib/context";
import type { ShardDb } from "../../lib/shards";
import { paymentWebhookVerifier, WebhookSignatureError, type ProcessorEvent } from "../../providers/payments";
import { appendEnvelopeAudit } from "../envelopes/append-audit";
import { envelopeEventData } from "../envelopes/serialize";
import { autoVaultIfConsented } from "../vault/auto-vault";
import {
  findPaymentById,
  findPaymentByIntent,
  findStripeEvent,
  paymentFailureUpdate,
  paymentPaidUpdate,
  stripeEventInsert,
  type PaymentRow,
} from "../payments/repository";

export type WebhookOutcome = { outcome: "paid" | "failure_recorded" | "duplicate" | "ignored"; reason?: string };

const HANDLED = ["payment_intent.succeeded", "payment_intent.payment_failed"] as const;

type Intent = {
  id: string;
  amount: number;
  currency: string;
  status: string;
  metadata: Record<string, string>;
  last_payment_error?: { code?: string | null; message?: string | null } | null;
};

/**
 * POST /stripe/webhook (docs/decisions/sign-and-pay.md). The raw body is verified with the `stripe` library against
 * STRIPE_WEBHOOK_SECRET (a missing, forged, other-secret or older than 5 minutes signature is 400 and
 * nothing is recorded). Then, by Stripe's event id, each event acts at most once:
 *
 * - `payment_intent.succeeded` for a payment this service requested marks it `paid`, fans out
 *   `invoice.paid` to the organization's webhooks and chains `envelope.payment_paid` on the envelope's
 *   audit log, in one batch; then runs the auto-vault that waited for the payment.
 * - `payment_intent.payment_failed` is recorded on the payment (count, Stripe's code and message,
 *   `envelope.payment_failed` in the audit log); the payment stays `requires_payment`, the payer can
 *   try again with the same PaymentIntent.
 * - an event seen before answers `duplicate` and changes nothing; other event types, intents this
 *   service did not create, and intents whose metadata, amount or currency do not match the payment
 *   answer 200 `ignored` (Stripe retries anything else for days), never marking anything paid.
 *
 * Shards (docs/decisions/shards.md 4): the event is handled, de-duplicated and recorded on the shard
 * the intent's metadata names, `payment_id` (tagged with the payment's shard at intent creation), else
 * `envelope_id`; a re-sent event routes identically. An event naming nothing of ours is recorded on
 * shard 1 (`ignored`), as before sharding.
 */
export async function handleStripeWebhook(base: RequestContext, input: { rawBody: string; signature: string | undefined }): Promise<WebhookOutcome> {
  let ctx = onShard(base, 1);
  const verify = paymentWebhookVerifier(ctx.env);
  let event: ProcessorEvent;
  try {
    event = await verify(input.rawBody, input.signature);
  } catch (err) {
    if (err instanceof WebhookSignatureError) throw badRequest(`Invalid Stripe webhook signature: ${err.message}`);
    throw err;
  }
  if (!(HANDLED as readonly string[]).includes(event.type)) return { outcome: "ignored", reason: `event type ${event.type} is not handled` };
  const intent = asIntent(event.object);
  if (!intent) return ignore(ctx, event, null, null, "the event does not carry a PaymentIntent");
  const ours = shardKeyOf(intent);
  if (ours) ctx = onShardOf(ctx, ours);

  const seen = await findStripeEvent(ctx.db, event.id);
  if (seen) {
    // Stripe re-sends until it gets a 2xx: a re-sent success also re-runs the (idempotent) deferred auto-vault.
    const payment = await findPaymentByIntent(ctx.db, intent.id);
    if (event.type === "payment_intent.succeeded" && payment?.status === "paid") await runDeferredAutoVault(ctx, payment);
    return { outcome: "duplicate" };
  }

  const payment = await paymentOf(ctx.db, intent);
  const mismatch = payment ? mismatchOf(payment, intent) : "no payment of this service has this PaymentIntent";
  if (!payment || mismatch) return ignore(ctx, event, intent.id, payment?.id ?? null, mismatch!);

  if (event.type === "payment_intent.succeeded") {
    if (intent.status !== "succeeded") return ignore(ctx, event, intent.id, payment.id, `the PaymentIntent's status is ${intent.status}`);
    const outcome = await markPaid(ctx, event, intent, payment);
    await runDeferredAutoVault(ctx, payment);
    return outcome;
  }
  return recordFailure(ctx, event, intent, payment);
}

function asIntent(object: Record<string, unknown>): Intent | null {
  if (object.object !== "payment_intent" || typeof object.id !== "string") return null;
  if (typeof object.amount !== "number" || typeof object.currency !== "string" || typeof object.status !== "string") return null;
  const metadata = object.metadata && typeof object.metadata === "object" ? (object.metadata as Record<string, string>) : {};
  return { ...(object as Intent), metadata };
}

/** The id whose tag names the intent's shard: its payment's, else its envelope's; null when it names neither. */
function shardKeyOf(intent: Intent): string | null {
  const { payment_id: paymentId, envelope_id: envelopeId } = intent.metadata;
  if (typeof paymentId === "string" && paymentId) return paymentId;
  if (typeof envelopeId === "string" && envelopeId) return envelopeId;
  return null;
}

/** By the stored intent id, or (if the webhook overtook the store of the id) by the payment named in its metadata. */
async function paymentOf(db: ShardDb, intent: Intent): Promise<PaymentRow | null> {
  const byIntent = await findPaymentByIntent(db, intent.id);
  if (byIntent) return byIntent;
  const paymentId = intent.metadata.payment_id;
  return typeof paymentId === "string" ? findPaymentById(db, paymentId) : null;
}

/** Why this intent cannot settle this payment (another envelope or organization, other money), or null. */
function mismatchOf(payment: PaymentRow, intent: Intent): string | null {
  if (payment.stripe_payment_intent_id && payment.stripe_payment_intent_id !== intent.id) return "the payment has another PaymentIntent";
  if (intent.metadata.org_id !== payment.org_id || intent.metadata.envelope_id !== payment.envelope_id) {
    return "the PaymentIntent's metadata names another organization or envelope";
  }
  if (intent.amount !== payment.amount_cents || intent.currency !== payment.currency) return "the PaymentIntent's amount or currency differs from the payment";
  return null;
}

const recordEvent = (db: ShardDb, event: ProcessorEvent, intentId: string | null, paymentId: string | null, outcome: string, reason: string | null, at: string) =>
  stripeEventInsert(db, { id: event.id, type: event.type, payment_intent_id: intentId, payment_id: paymentId, outcome, reason, at });

async function ignore(ctx: RequestContext, event: ProcessorEvent, intentId: string | null, paymentId: string | null, reason: string): Promise<WebhookOutcome> {
  console.warn(JSON.stringify({ level: "warn", msg: "stripe event ignored", event_id: event.id, type: event.type, payment_intent: intentId, reason }));
  await recordEvent(ctx.db, event, intentId, paymentId, "ignored", reason, new Date().toISOString()).run();
  return { outcome: "ignored", reason };
}

async function markPaid(ctx: RequestContext, event: ProcessorEvent, intent: Intent, payment: PaymentRow): Promise<WebhookOutcome> {
  const committed = await appendEnvelopeAudit(ctx, {
    orgId: payment.org_id,
    envelopeId: payment.envelope_id,
    actor: ctx.actor,
    build: async (envelope, at) => {
      const current = await findPaymentById(ctx.db, payment.id);
      if (!current || current.status === "paid") return null;
      const paid = { amount_cents: current.amount_cents, currency: current.currency, payer_email: current.payer_email, payment_intent_id: intent.id, stripe_event_id: event.id, paid_at: at };
      return {
        action: "envelope.payment_paid",
        data: paid,
        statements: [paymentPaidUpdate(ctx.db, current.id, intent.id, at), recordEvent(ctx.db, event, intent.id, current.id, "paid", null, at)],
        event: {
          type: "invoice.paid",
          data: { ...envelopeEventData(envelope), payment: { ...paid, status: "paid", application_fee_cents: current.application_fee_cents } },
        },
      };
    },
  });
  if (!committed) return ignore(ctx, event, intent.id, payment.id, "the payment is already paid");
  return { outcome: "paid" };
}

async function recordFailure(ctx: RequestContext, event: ProcessorEvent, intent: Intent, payment: PaymentRow): Promise<WebhookOutcome> {
  const code = intent.last_payment_error?.code ?? null;
  const message = intent.last_payment_error?.message ?? null;
  const committed = await appendEnvelopeAudit(ctx, {
    orgId: payment.org_id,
    envelopeId: payment.envelope_id,
    actor: ctx.actor,
    build: async (_envelope, at) => {
      const current = await findPaymentById(ctx.db, payment.id);
      if (!current || current.status === "paid") return null;
      return {
        action: "envelope.payment_failed",
        data: { payment_intent_id: intent.id, stripe_event_id: event.id, failure_code: code, failure_message: message },
        statements: [
          paymentFailureUpdate(ctx.db, current.id, { intentId: intent.id, code, message, at }),
          recordEvent(ctx.db, event, intent.id, current.id, "failure_recorded", code, at),
        ],
      };
    },
  });
  if (!committed) return ignore(ctx, event, intent.id, payment.id, "the payment is already paid");
  return { outcome: "failure_recorded" };
}

/**
 * The auto-vault that waited for the payment (docs/decisions/sign-and-pay.md): run here, in the webhook request, once
 * the payment is paid. It vaults only a `completed` envelope with auto-vault consent, and does
 * nothing on one already vaulted. An unexpected failure (storage down) is thrown: the webhook answers
 * 500, Stripe re-sends the event, and the re-sent event runs this again.
 */
async function runDeferredAutoVault(ctx: RequestContext, payment: PaymentRow): Promise<void> {
  await autoVaultIfConsented(ctx, { envelopeId: payment.envelope_id });
}
