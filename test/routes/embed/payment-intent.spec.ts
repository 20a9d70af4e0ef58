import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import type { Env } from "../../../src/env";
import { operator } from "../../helpers/api";
import { BUYER, embedToken, intentStats, payFor, paymentRow, payingTenant, sentPayEnvelope, sign } from "../../helpers/payments";
import { adminToken, createEndpoint, receiverUrl, waitForRequests } from "../../helpers/webhooks";
import { shardDbOf } from "../../helpers/shards";

/** POST /embed/payment-intent against a Worker configured with `overrides`. */
async function intentWith(token: string, overrides: Partial<Env>) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request("http://localhost/api/v2/embed/payment-intent", { method: "POST", headers: { authorization: `Bearer ${token}` } }),
    { ...env, ...overrides },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as { error?: string; details?: Record<string, unknown>; data?: unknown } };
}

describe("POST /embed/payment-intent when Stripe or the configuration fails", () => {
  it("answers 502 (never 500) when Stripe refuses the request, and 503 naming a missing variable", async () => {
    const t = await payingTenant();
    const e = await sentPayEnvelope(t.key);
    const token = (await embedToken(t.key, e.envelopeId, BUYER.email)).body.data.token as string;

    const wrongKey = await intentWith(token, { STRIPE_SECRET_KEY: "sk_test_revoked" });
    expect(wrongKey.status).toBe(502);
    expect(wrongKey.body.error).toContain("STRIPE_SECRET_KEY");

    // Stripe refuses the connected account (the stand-in, as Stripe, checks the destination)
    await shardDbOf(e.envelopeId).prepare("UPDATE payments SET destination_account = 'not-an-account' WHERE envelope_id = ?").bind(e.envelopeId).run();
    const refused = await intentWith(token, {});
    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatch(/No such destination/);
    expect(refused.body.details).toMatchObject({ processor_code: "resource_missing" });
    expect((await paymentRow(e.envelopeId))!.stripe_payment_intent_id).toBeNull();

    expect((await intentWith(token, { STRIPE_PUBLISHABLE_KEY: undefined })).body.error).toContain("STRIPE_PUBLISHABLE_KEY");
    expect((await intentWith(token, { STRIPE_PUBLISHABLE_KEY: undefined })).status).toBe(503);
    expect((await intentWith(token, { STRIPE_SECRET_KEY: undefined })).status).toBe(503);
    expect((await intentStats(e.envelopeId)).created).toBe(0);

    // the refusals left nothing behind: once the account is right, the intent is created
    await shardDbOf(e.envelopeId).prepare("UPDATE payments SET destination_account = 'acct_1DealerStandIn' WHERE envelope_id = ?").bind(e.envelopeId).run();
    expect((await intentWith(token, {})).status).toBe(200);
    expect((await intentStats(e.envelopeId)).created).toBe(1);
  });

  it("keeps the fee and account of the create when the operator changes them later", async () => {
    const t = await payingTenant();
    const e = await sentPayEnvelope(t.key, { amount_cents: 10_001 });
    await operator("PATCH", `/orgs/${t.orgId}`, { stripe_account_id: "acct_2Other", platform_fee_bps: 900 });
    const token = (await embedToken(t.key, e.envelopeId, BUYER.email)).body.data.token as string;
    const res = await intentWith(token, {});
    expect(res.status).toBe(200);
    const row = (await paymentRow(e.envelopeId))!;
    const pi = await fetch(`${env.STRIPE_API_BASE}/v1/payment_intents/${row.stripe_payment_intent_id}`, { headers: { authorization: `Bearer ${env.STRIPE_SECRET_KEY}` } }).then((r) => r.json<any>());
    expect(pi).toMatchObject({ amount: 10_001, application_fee_amount: 250, transfer_data: { destination: "acct_1DealerStandIn" } });
  });
});

describe("invoice.paid", () => {
  it("is delivered to the organization's webhook endpoints when Stripe reports the payment", async () => {
    const t = await payingTenant();
    const target = receiverUrl("ok");
    const endpoint = await createEndpoint(await adminToken(t.orgId), { url: target.url, events: ["invoice.*"] });
    const e = await sentPayEnvelope(t.key);
    await sign(e.buyer, "buyer");
    expect((await payFor(t.key, e.envelopeId)).body.data.outcome).toBe("paid");
    const [delivery] = await waitForRequests(target.path, 1);
    expect(delivery, "invoice.paid delivered").toBeDefined();
    expect(delivery!.headers["x-service-event"]).toBe("invoice.paid");
    expect(delivery!.headers["x-service-endpoint"]).toBe(endpoint.endpoint_id);
    const body = JSON.parse(delivery!.body);
    expect(body).toMatchObject({
      event_type: "invoice.paid",
      org_id: t.orgId,
      envelope_id: e.envelopeId,
      data: { envelope_id: e.envelopeId, payment: { amount_cents: 150_000, currency: "usd", status: "paid", payer_email: BUYER.email } },
    });
  });
});
