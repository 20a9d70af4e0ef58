import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { call, envelopeBody, newTenant, operator } from "../../helpers/api";
import { BUYER, COSIGNER, paymentRow, payingTenant, sentPayEnvelope } from "../../helpers/payments";
import { sendEnvelope, templateWithRoles } from "../../helpers/signing";
import { orgShardDb } from "../../helpers/shards";

const create = (key: string, payment: unknown, extra: Record<string, unknown> = {}) =>
  call("POST", "/partner/envelopes", { key, body: envelopeBody({ payment, ...extra }) });

const PAYMENT = { amount_cents: 150_000, currency: "usd", payer_email: BUYER.email };

describe("POST /partner/envelopes with a payment (Sign + Pay)", () => {
  it("records the payment with the connected account and the fee fixed at create", async () => {
    const t = await payingTenant();
    const res = await create(t.key, { ...PAYMENT, amount_cents: 99_999, payer_email: "Ann@Example.com" });
    expect(res.status).toBe(201);
    expect(await paymentRow(res.body.data.envelope_id)).toMatchObject({
      org_id: t.orgId,
      amount_cents: 99_999,
      currency: "usd",
      payer_email: "ann@example.com",
      destination_account: "acct_1DealerStandIn",
      platform_fee_bps: 250,
      application_fee_cents: 2499, // floor(99,999 x 250 / 10,000)
      status: "requires_payment",
      stripe_payment_intent_id: null,
    });
  });

  it("refuses amounts that are not positive integer cents within Stripe's limits, and currencies Stripe does not take (422)", async () => {
    const t = await payingTenant();
    const bad: [string, unknown, string][] = [
      ["negative", { ...PAYMENT, amount_cents: -500 }, "amount_cents"],
      ["zero", { ...PAYMENT, amount_cents: 0 }, "amount_cents"],
      ["fractional", { ...PAYMENT, amount_cents: 1500.5 }, "amount_cents"],
      ["a string", { ...PAYMENT, amount_cents: "1500" }, "amount_cents"],
      ["above Stripe's maximum", { ...PAYMENT, amount_cents: 100_000_000 }, "amount_cents"],
      ["below Stripe's minimum for usd", { ...PAYMENT, amount_cents: 49 }, "amount_cents"],
      ["an unsupported currency", { ...PAYMENT, currency: "xyz" }, "currency"],
      ["an upper-case currency", { ...PAYMENT, currency: "USD" }, "currency"],
      ["an invalid payer email", { ...PAYMENT, payer_email: "not-an-email" }, "payer_email"],
      ["no payer", { amount_cents: 1500, currency: "usd" }, "payer_email"],
    ];
    for (const [name, payment, field] of bad) {
      const res = await create(t.key, payment);
      expect(res.status, name).toBe(422);
      expect(res.body.details.map((d: { path: unknown[] }) => d.path.join(".")), name).toContain(`payment.${field}`);
    }
    const count = await (await orgShardDb(t.orgId)).prepare("SELECT COUNT(*) AS n FROM payments WHERE org_id = ?").bind(t.orgId).first("n");
    expect(count).toBe(0);
  });

  it("needs the organization's connected account and fee: 422 naming what is missing", async () => {
    const t = await newTenant();
    const none = await create(t.key, PAYMENT);
    expect(none.status).toBe(422);
    expect(none.body.error).toContain("stripe_account_id and platform_fee_bps are not set");
    expect(none.body.code).toBe("payments_not_set_up");
    expect(none.body.details.map((d: { message: string }) => d.message)).toEqual(["stripe_account_id is not set", "platform_fee_bps is not set"]);
    await operator("PATCH", `/orgs/${t.orgId}`, { stripe_account_id: "acct_1DealerStandIn" });
    const noFee = await create(t.key, PAYMENT);
    expect(noFee.status).toBe(422);
    expect(noFee.body.details.map((d: { message: string }) => d.message)).toEqual(["platform_fee_bps is not set"]);
    await operator("PATCH", `/orgs/${t.orgId}`, { platform_fee_bps: 100 });
    expect((await create(t.key, PAYMENT)).status).toBe(201);
    // the envelopes refused were never written
    const listed = await call("GET", "/partner/envelopes", { key: t.key });
    expect(listed.body.meta.total).toBe(1);
  });

  it("refuses a payment on a paper envelope, which no signer signs here", async () => {
    const t = await payingTenant();
    const res = await create(t.key, PAYMENT, { document_source: "upload" });
    expect(res.status).toBe(422);
    expect(res.body.details[0].path).toEqual(["payment"]);
  });

  it("answers 503 naming STRIPE_SECRET_KEY when payments are not configured", async () => {
    const t = await payingTenant();
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request("http://localhost/api/v2/partner/envelopes", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": t.key },
        body: JSON.stringify(envelopeBody({ payment: PAYMENT })),
      }),
      { ...env, STRIPE_SECRET_KEY: undefined },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toContain("STRIPE_SECRET_KEY");
  });

  it("at send, the payer must be one of the signers (422); the envelope stays unsent", async () => {
    const t = await payingTenant();
    const template = await templateWithRoles(t.key, ["buyer", "cosigner"]);
    const created = await create(t.key, { ...PAYMENT, payer_email: "someone.else@example.com" }, { template_id: template });
    expect(created.status).toBe(201);
    const sent = await sendEnvelope(t.key, created.body.data.envelope_id, {
      signers: [
        { ...BUYER, routing_order: 1 },
        { ...COSIGNER, routing_order: 2 },
      ],
    });
    expect(sent.status).toBe(422);
    expect(sent.body.details[0]).toMatchObject({ path: ["signers"] });
    expect(sent.body.details[0].message).toContain("someone.else@example.com");
    const status = await call("GET", `/partner/envelopes/${created.body.data.envelope_id}/status`, { key: t.key });
    expect(status.body.data.status).toBe("pending");
  });

  it("sends when the payer is a signer (in any letter case)", async () => {
    const t = await payingTenant();
    const e = await sentPayEnvelope(t.key, { payer_email: "COLE@example.com" });
    expect((await paymentRow(e.envelopeId))!.payer_email).toBe(COSIGNER.email);
  });
});
