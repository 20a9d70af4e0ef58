import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call } from "../../helpers/api";
import { deliverWebhook, paymentIntent, paymentRow, payingTenant, sentPayEnvelope, sign, stripeEvent } from "../../helpers/payments";
import { sendableEnvelope, sendEnvelope } from "../../helpers/signing";

const paymentToken = (slug: string) => call("POST", `/signing/${slug}/payment-token`);
const page = (path: string) => SELF.fetch(`http://localhost${path}`);

describe("the signing page's payment step (server side)", () => {
  it("serves Stripe.js and Stripe's CSP only on the page of the payer of a payment still due", async () => {
    const t = await payingTenant();
    const e = await sentPayEnvelope(t.key);

    const payer = await page(`/sign/s/${e.buyer}`);
    const payerCsp = payer.headers.get("content-security-policy")!;
    const payerHtml = await payer.text();
    expect(payerHtml).toContain('<script src="https://js.stripe.com/v3"></script>');
    expect(payerHtml).toContain('data-payment="stripe"');
    expect(payerCsp).toContain("script-src 'self' 'wasm-unsafe-eval' https://js.stripe.com https://*.js.stripe.com;");
    expect(payerCsp).toContain("frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com;");
    expect(payerCsp).toContain("connect-src 'self' https://api.stripe.com;");

    // the other signer, and envelopes without a payment: no Stripe at all, today's policy
    const plain = await sendableEnvelope(t.key);
    const plainSent = await sendEnvelope(t.key, plain.envelope_id);
    for (const slug of [e.cosigner, plainSent.body.data.signers[0].slug as string]) {
      const res = await page(`/sign/s/${slug}`);
      const html = await res.text();
      expect(html).not.toContain("stripe");
      expect(res.headers.get("content-security-policy")).not.toContain("stripe");
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self' 'wasm-unsafe-eval';");
    }
    // the embedded sign widget of an envelope with a payment due loads it; the vault widget never does
    expect(await (await page(`/embed/sign/${e.envelopeId}`)).text()).toContain("js.stripe.com/v3");
    expect(await (await page(`/embed/vault/${e.envelopeId}`)).text()).not.toContain("stripe");
    expect(await (await page(`/embed/sign/${plain.envelope_id}`)).text()).not.toContain("stripe");
  });

  it("hands the payer, after signing, a sign embed token that opens the payment; nobody else, and not before signing", async () => {
    const t = await payingTenant();
    const e = await sentPayEnvelope(t.key);
    expect((await paymentToken(e.buyer)).body.data).toEqual({ payment_required: false }); // not signed yet
    await sign(e.buyer, "buyer");
    const issued = await paymentToken(e.buyer);
    expect(issued.status).toBe(200);
    expect(issued.headers.get("cache-control")).toBe("no-store");
    expect(issued.body.data).toMatchObject({ payment_required: true, token: expect.any(String) });
    const intent = await paymentIntent(issued.body.data.token);
    expect(intent.body.data).toMatchObject({ payment_required: true, amount_cents: 150_000, currency: "usd" });

    // the cosigner completes the envelope: the slug's signing routes close (410; its GET shows the copy), the payer's payment step does not
    await sign(e.cosigner, "cosigner");
    expect((await call("POST", `/signing/${e.buyer}/view`)).status).toBe(410);
    expect((await paymentToken(e.buyer)).body.data.payment_required).toBe(true);
    expect((await paymentToken(e.cosigner)).body.data).toEqual({ payment_required: false });

    // once paid, nothing is due
    const row = await paymentRow(e.envelopeId);
    const event = await stripeEvent("payment_intent.succeeded", row!.stripe_payment_intent_id);
    await deliverWebhook(event.payload, event.signature_header);
    expect((await paymentToken(e.buyer)).body.data).toEqual({ payment_required: false });
    expect(await (await page(`/sign/s/${e.buyer}`)).text()).not.toContain("stripe");
  });

  it("answers 404 for an unknown slug", async () => {
    expect((await paymentToken("a".repeat(26))).status).toBe(404);
  });
});
