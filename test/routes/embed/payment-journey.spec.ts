import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, operator } from "../../helpers/api";
import {
  BUYER,
  COSIGNER,
  deliverWebhook,
  embedToken,
  intentStats,
  paymentIntent,
  paymentRow,
  paymentStatus,
  payingTenant,
  sentPayEnvelope,
  sign,
  stripeEvent,
} from "../../helpers/payments";
import { sendableEnvelope, sendEnvelope } from "../../helpers/signing";
import { shardDbOf } from "../../helpers/shards";

async function adminToken(orgId: string, role: "admin" | "custodian" = "custodian") {
  const user = await operator("POST", `/orgs/${orgId}/users`, { email: `${role}-${crypto.randomUUID()}@example.com`, name: role, role });
  const token = await operator("POST", `/users/${user.body.data.user_id}/access-tokens`, { org_id: orgId });
  return token.body.data.access_token as string;
}

describe("Sign + Pay: the journey against the Stripe stand-in", () => {
  it("create with payment -> sign -> intent -> Stripe's success -> paid -> vault-in; every vault path is 409 before", async () => {
    const t = await payingTenant();
    const e = await sentPayEnvelope(t.key);
    const payerToken = (await embedToken(t.key, e.envelopeId, BUYER.email)).body.data.token as string;

    expect((await paymentStatus(payerToken)).body.data).toEqual({ status: "requires_payment" });
    expect((await sign(e.buyer, "buyer")).status).toBe(200);

    const intent = await paymentIntent(payerToken);
    expect(intent.status).toBe(200);
    expect(intent.headers.get("cache-control")).toBe("no-store");
    expect(intent.body.data).toMatchObject({ payment_required: true, publishable_key: env.STRIPE_PUBLISHABLE_KEY, amount_cents: 150_000, currency: "usd", status: "requires_payment" });
    expect(intent.body.data.client_secret).toMatch(/^pi_\w+_secret_\w+$/);

    // The PaymentIntent Stripe holds: a destination charge with the platform's fee, naming the envelope.
    const row = await paymentRow(e.envelopeId);
    const pi = await fetch(`${env.STRIPE_API_BASE}/v1/payment_intents/${row!.stripe_payment_intent_id}`, { headers: { authorization: `Bearer ${env.STRIPE_SECRET_KEY}` } }).then((r) => r.json<any>());
    expect(pi).toMatchObject({
      amount: 150_000,
      currency: "usd",
      application_fee_amount: 3750,
      transfer_data: { destination: "acct_1DealerStandIn" },
      metadata: { envelope_id: e.envelopeId, org_id: t.orgId, payment_id: row!.id },
      client_secret: intent.body.data.client_secret,
    });

    // The cosigner signs: the envelope is completed, but nothing may be vaulted while the payment is unpaid.
    expect((await sign(e.cosigner, "cosigner")).body.data).toMatchObject({ completed: true, envelope_status: "completed" });
    const early = await call("POST", `/partner/envelopes/${e.envelopeId}/vault-in-signed`, { key: t.key, body: {} });
    expect(early.status).toBe(409);
    expect(early.body.error).toMatch(/payment/i);
    expect(early.body.details).toEqual({ payment_status: "requires_payment" });
    const widget = await embedToken(t.key, e.envelopeId, BUYER.email, "vault");
    expect(widget.status).toBe(409);
    expect(widget.body.error).toMatch(/payment/i);
    expect(await shardDbOf(e.envelopeId).prepare("SELECT COUNT(*) AS n FROM vault_records WHERE envelope_id = ?").bind(e.envelopeId).first("n")).toBe(0);

    // Stripe reports the payment succeeded.
    const event = await stripeEvent("payment_intent.succeeded", row!.stripe_payment_intent_id);
    const delivered = await deliverWebhook(event.payload, event.signature_header);
    expect(delivered.status).toBe(200);
    expect(delivered.body.data).toEqual({ received: true, outcome: "paid" });
    expect((await paymentStatus(payerToken)).body.data).toEqual({ status: "paid" });
    expect((await paymentIntent(payerToken)).body.data).toEqual({ payment_required: false });

    const vaulted = await call("POST", `/partner/envelopes/${e.envelopeId}/vault-in-signed`, { key: t.key, body: {} });
    expect(vaulted.status).toBe(200);
    expect(vaulted.body.data.status).toBe("vaulted");
    expect((await embedToken(t.key, e.envelopeId, BUYER.email, "vault")).status).toBe(200);

    // invoice.paid went to the outbox for the organization's webhooks; the audit chain records the payment.
    const invoice = await shardDbOf(e.envelopeId).prepare("SELECT org_id, data FROM events WHERE envelope_id = ? AND type = 'invoice.paid'").bind(e.envelopeId).all<{ org_id: string; data: string }>();
    expect(invoice.results).toHaveLength(1);
    expect(invoice.results[0]!.org_id).toBe(t.orgId);
    expect(JSON.parse(invoice.results[0]!.data)).toMatchObject({ envelope_id: e.envelopeId, payment: { amount_cents: 150_000, currency: "usd", status: "paid", payment_intent_id: pi.id } });
    const audit = await shardDbOf(e.envelopeId).prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(e.envelopeId).all<{ action: string }>();
    expect(audit.results.map((a) => a.action)).toContain("envelope.payment_paid");
    const verify = await call("GET", `/envelopes/${e.envelopeId}/audit/verify`, { bearer: await adminToken(t.orgId, "admin") });
    expect(verify.body.data.verified).toBe(true);
  });

  it("auto-vault on completion waits for the payment, then happens when Stripe's success arrives, without anyone calling again", async () => {
    const t = await payingTenant();
    const e = await sentPayEnvelope(t.key);
    const consent = await call("POST", `/envelopes/${e.envelopeId}/auto-vault-consent`, {
      bearer: await adminToken(t.orgId),
      body: { auto_vault_enabled: true, acknowledge_authoritative_copy: true },
    });
    expect(consent.status).toBe(200);
    const payerToken = (await embedToken(t.key, e.envelopeId, BUYER.email)).body.data.token as string;
    await sign(e.buyer, "buyer");
    await sign(e.cosigner, "cosigner");
    const status = await call("GET", `/partner/envelopes/${e.envelopeId}/status`, { key: t.key });
    expect(status.body.data).toMatchObject({ status: "completed", vaulted: false });

    expect((await paymentIntent(payerToken)).body.data.payment_required).toBe(true);
    const row = await paymentRow(e.envelopeId);
    const event = await stripeEvent("payment_intent.succeeded", row!.stripe_payment_intent_id);
    expect((await deliverWebhook(event.payload, event.signature_header)).body.data.outcome).toBe("paid");

    const after = await call("GET", `/partner/envelopes/${e.envelopeId}/status`, { key: t.key });
    expect(after.body.data).toMatchObject({ status: "vaulted", vaulted: true });
  });

  it("a retried or concurrent payment-intent creates one PaymentIntent and answers the same client secret", async () => {
    const t = await payingTenant();
    const e = await sentPayEnvelope(t.key);
    const token = (await embedToken(t.key, e.envelopeId, BUYER.email)).body.data.token as string;
    const answers = await Promise.all([paymentIntent(token), paymentIntent(token), paymentIntent(token)]);
    const again = await paymentIntent(token);
    const secrets = new Set([...answers, again].map((a) => a.body.data.client_secret));
    expect([...answers, again].map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(secrets.size).toBe(1);
    expect((await intentStats(e.envelopeId)).created).toBe(1);
  });

  it("a signer who is not the payer, and envelopes without a payment, get payment_required: false", async () => {
    const t = await payingTenant();
    const e = await sentPayEnvelope(t.key);
    const other = (await embedToken(t.key, e.envelopeId, COSIGNER.email)).body.data.token as string;
    expect((await paymentIntent(other)).body.data).toEqual({ payment_required: false });
    expect((await paymentStatus(other)).body.data).toEqual({ status: "requires_payment" });
    expect((await intentStats(e.envelopeId)).create_requests).toBe(0);

    // Another envelope's token (no payment there) says nothing about this one's payment.
    const plain = await sendableEnvelope(t.key, ["buyer"], { customer_email: BUYER.email });
    await sendEnvelope(t.key, plain.envelope_id);
    const plainToken = (await embedToken(t.key, plain.envelope_id, BUYER.email)).body.data.token as string;
    expect((await paymentIntent(plainToken)).body.data).toEqual({ payment_required: false });
    expect((await paymentStatus(plainToken)).body.data).toEqual({ status: null });
  });

  it("refuses missing and forged tokens on payment-intent (401)", async () => {
    const t = await payingTenant();
    const e = await sentPayEnvelope(t.key);
    expect((await call("POST", "/embed/payment-intent")).status).toBe(401);
    expect((await paymentIntent("not.a.token")).status).toBe(401);
    const token = (await embedToken(t.key, e.envelopeId, BUYER.email)).body.data.token as string;
    const [h, p] = token.split(".");
    expect((await paymentIntent(`${h}.${p}.${"A".repeat(43)}`)).status).toBe(401);
  });
});
