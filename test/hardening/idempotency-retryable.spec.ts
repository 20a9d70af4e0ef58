import { describe, expect, it } from "vitest";
import { isRetryAnswer } from "../../src/middleware/idempotency";
import { call } from "../helpers/api";
import { BUYER, deliverWebhook, embedToken, paymentIntent, paymentRow, payingTenant, sentPayEnvelope, sign, stripeEvent } from "../helpers/payments";
import { shardDbOf } from "../helpers/shards";

/**
 * A Sign + Pay envelope both signers completed; its requested payment is still unpaid. `pay()` is the
 * payer opening the payment step (their embed token was minted while signing) and Stripe's success.
 */
async function completedUnpaid() {
  const t = await payingTenant();
  const e = await sentPayEnvelope(t.key);
  const payerToken = (await embedToken(t.key, e.envelopeId, BUYER.email)).body.data.token as string;
  expect((await sign(e.buyer, "buyer")).status).toBe(200);
  expect((await sign(e.cosigner, "cosigner")).body.data).toMatchObject({ completed: true, envelope_status: "completed" });
  const pay = async () => {
    expect((await paymentIntent(payerToken)).body.data.payment_required).toBe(true);
    const event = await stripeEvent("payment_intent.succeeded", (await paymentRow(e.envelopeId))!.stripe_payment_intent_id);
    expect((await deliverWebhook(event.payload, event.signature_header)).body.data.outcome).toBe("paid");
  };
  return { t, envelopeId: e.envelopeId, pay };
}

describe("Idempotency-Key: a 409 that clears once the payment settles is not stored as the request's answer", () => {
  it("vault-in refused while the payment is unpaid vaults when retried with the same key after the payment settles", async () => {
    const { t, envelopeId, pay } = await completedUnpaid();
    const vaultIn = () => call("POST", `/partner/envelopes/${envelopeId}/vault-in-signed`, { key: t.key, body: {}, headers: { "Idempotency-Key": "vault-when-paid" } });

    const early = await vaultIn();
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: "payment_pending", details: { payment_status: "requires_payment" } });
    // Retried before the payment settles, it is refused again by the handler, not replayed.
    const again = await vaultIn();
    expect(again.status).toBe(409);
    expect(again.headers.get("Idempotent-Replayed")).toBeNull();

    await pay();
    // The Stripe notification's own auto-vault does not apply (no consent): the partner's retry vaults.
    const retried = await vaultIn();
    expect(retried.status).toBe(200);
    expect(retried.headers.get("Idempotent-Replayed")).toBeNull();
    expect(retried.body.data.status).toBe("vaulted");
    expect(await shardDbOf(envelopeId).prepare("SELECT COUNT(*) AS n FROM vault_records WHERE envelope_id = ?").bind(envelopeId).first("n")).toBe(1);

    // The successful answer is the one stored from now on.
    const replay = await vaultIn();
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.body).toEqual(retried.body);
  });

  it("the vault widget's embed token refused while unpaid is issued when retried with the same key once paid and vaulted", async () => {
    const { t, envelopeId, pay } = await completedUnpaid();
    const widget = () =>
      call("POST", "/embed/token", {
        key: t.key,
        body: { envelope_id: envelopeId, user_email: BUYER.email, widget_type: "vault" },
        headers: { "Idempotency-Key": "vault-widget-when-paid" },
      });
    const early = await widget();
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("payment_pending");

    await pay();
    expect((await call("POST", `/partner/envelopes/${envelopeId}/vault-in-signed`, { key: t.key, body: {} })).status).toBe(200);
    const retried = await widget();
    expect(retried.status).toBe(200);
    expect(retried.headers.get("Idempotent-Replayed")).toBeNull();
    expect(retried.body.data.token).toEqual(expect.any(String));
  });

  it("answers that depend on state that changes (payment pending, rate limit, service not configured) are retry answers", () => {
    const body = (error: string, code?: string) => JSON.stringify({ error, ...(code ? { code } : {}) });
    expect(isRetryAnswer(409, body("A payment requested on this envelope has not been paid yet; it can be vaulted once the payment settles", "payment_pending"))).toBe(true);
    expect(isRetryAnswer(429, body("Rate limit exceeded"))).toBe(true);
    expect(isRetryAnswer(503, body("Service not configured: the STRIPE_SECRET_KEY variable is not set"))).toBe(true);
    // A refusal for a state that does not clear by itself stays the request's answer.
    expect(isRetryAnswer(409, body("This envelope requires knowledge-based authentication", "kba_required"))).toBe(false);
  });
});
