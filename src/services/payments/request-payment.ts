import { type ErrorCodesByStatus, unprocessable } from "../../lib/errors";
import { apiIssue } from "../../lib/validation";
import { newShardId, type GlobalDb, type ShardDb } from "../../lib/shards";
import { assertPaymentsConfigured } from "../../providers/payments";
import type { Env } from "../../env";
import { getOrganizationPaymentSettings } from "../organizations/repository";
import { paymentInsert } from "./repository";
import type { PaymentRequest } from "./schema";

export type PlannedPayment = {
  id: string;
  statement: D1PreparedStatement;
  /** what the envelope's `envelope.created` audit entry records of it */
  audit: { amount_cents: number; currency: string; payer_email: string; application_fee_cents: number; destination_account: string };
};

/**
 * `payment` on envelope create (docs/decisions/sign-and-pay.md): checks that payments are on (STRIPE_SECRET_KEY, else
 * 503 naming it) and that the organization can take money (a connected account and a platform fee
 * set by the operator, else 422 naming what is missing), then returns the row's INSERT for the
 * create's batch. Amount, currency, connected account and fee are fixed now: the intent created
 * later (with an idempotency key per payment) always carries these same parameters.
 *
 * A fee of 0 counts as not set: `platform_fee_bps` defaults to 0 for every organization, so 0 cannot
 * tell "no fee agreed" from "never configured", and the platform does not process payments for free
 * by accident.
 *
 * The payment settings are the organization's (global); the row is written on the create's shard
 * (`ctx.db`) and its id names that shard, as the Stripe intent's metadata will (the webhook finds the
 * shard from it: docs/decisions/shards.md 4).
 */
export async function planPaymentRequest(
  ctx: { env: Env; global: GlobalDb; db: ShardDb; shardId: number },
  input: { orgId: string; envelopeId: string; documentSource: string; request: PaymentRequest; at: string },
): Promise<PlannedPayment> {
  assertPaymentsConfigured(ctx.env);
  if (input.documentSource === "upload") {
    throw unprocessable("Validation failed", [
      {
        code: "invalid_value",
        expected: "no payment",
        received: "payment",
        path: ["payment"],
        message: "A paper envelope (document_source: upload) is never signed here, so no signer can pay on it",
      },
    ]);
  }
  const org = await getOrganizationPaymentSettings(ctx.global, input.orgId);
  const missing = [
    ...(org?.stripe_account_id ? [] : ["stripe_account_id"]),
    ...(org && org.platform_fee_bps > 0 ? [] : ["platform_fee_bps"]),
  ];
  if (missing.length > 0) {
    throw unprocessable(
      `The organization cannot request payments yet: ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set (the operator sets them with PATCH /operator/orgs/${input.orgId})`,
      missing.map((setting) => apiIssue(["payment_request"], `the organization's ${setting}, set by the operator`, "not set", `${setting} is not set`, "payments_not_set_up")),
      "payments_not_set_up",
    );
  }
  const { amount_cents, currency } = input.request;
  const payerEmail = input.request.payer_email.trim().toLowerCase();
  const bps = org!.platform_fee_bps;
  const fee = Math.floor((amount_cents * bps) / 10_000);
  const id = newShardId("payment", ctx.shardId);
  const statement = paymentInsert(ctx.db, {
    id,
    envelope_id: input.envelopeId,
    org_id: input.orgId,
    amount_cents,
    currency,
    payer_email: payerEmail,
    destination_account: org!.stripe_account_id!,
    application_fee_cents: fee,
    platform_fee_bps: bps,
    at: input.at,
  });
  return {
    id,
    statement,
    audit: { amount_cents, currency, payer_email: payerEmail, application_fee_cents: fee, destination_account: org!.stripe_account_id! },
  };
}

export const REQUEST_PAYMENT_ERRORS: ErrorCodesByStatus = { 422: ["payments_not_set_up"] };
