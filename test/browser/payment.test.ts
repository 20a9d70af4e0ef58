import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { STRIPE_TEST_PUBLISHABLE_KEY, STRIPE_TEST_SECRET_KEY } from "../global/stripe-stand-in.mjs";
import { api, base, browserSuite, contractPdf, expectAccessible, ok, shot, status } from "./helpers";

const suite = browserSuite("Dealer Finance Pay");

/**
 * Stripe.js cannot load from this machine: the one request for it is answered by this stand-in, which
 * records what the page asked of it (publishable key, client secret, element type, confirmation)
 * and renders a placeholder where the Payment Element's frame would be.
 */
const STRIPE_JS_STAND_IN = `(() => {
  const rec = (window.__stripeStandIn = {});
  window.Stripe = function (publishableKey) {
    rec.publishableKey = publishableKey;
    return {
      elements(options) {
        rec.clientSecret = options.clientSecret;
        return {
          create(type) {
            rec.element = type;
            return { mount(el) { const d = document.createElement("div"); d.id = "stripe-stand-in-element"; d.textContent = "Card details"; el.append(d); rec.mounted = true; } };
          },
        };
      },
      confirmPayment(options) {
        rec.confirmed = { redirect: options.redirect, withElements: Boolean(options.elements), returnUrl: options.confirmParams && options.confirmParams.return_url };
        return Promise.resolve({ paymentIntent: { status: "succeeded" } });
      },
    };
  };
})();`;

/** Answers the page's request for Stripe.js with the stand-in; returns the URLs it was asked for. */
async function interceptStripeJs(page: Page) {
  const requested: string[] = [];
  await page.route("https://js.stripe.com/**", (route) => {
    requested.push(route.request().url());
    return route.fulfill({ status: 200, contentType: "application/javascript; charset=utf-8", body: STRIPE_JS_STAND_IN });
  });
  return requested;
}

async function sentPayContract(key: string, payerEmail = "ann@example.com") {
  const fields = [
    { name: "buyer_name", type: "text", role: "buyer", required: true, placement: { mode: "absolute", areas: [{ page: 1, x: 0.12, y: 0.16, w: 0.4, h: 0.035 }] } },
    { name: "dealer_name", type: "text", role: "dealer", required: true, placement: { mode: "absolute", areas: [{ page: 1, x: 0.12, y: 0.3, w: 0.4, h: 0.035 }] } },
  ];
  const form = new FormData();
  form.append("file", new File([Buffer.from(await contractPdf(1))], "contract.pdf", { type: "application/pdf" }));
  form.append("name", "Retail installment contract");
  form.append("fields_json", JSON.stringify(fields));
  const template = await ok(api("POST", "/partner/templates", { key, form }));
  const envelope = await ok(
    api("POST", "/partner/envelopes", {
      key,
      body: {
        envelope_name: "Retail installment contract",
        customer_email: "ann@example.com",
        customer_name: "Ann Buyer",
        template_id: template.template_id,
        payment: { amount_cents: 150_000, currency: "usd", payer_email: payerEmail },
      },
    }),
  );
  const sent = await ok(
    api("POST", `/partner/envelopes/${envelope.envelope_id}/send`, {
      key,
      body: {
        send_email: false,
        signers: [
          { role: "buyer", email: "ann@example.com", name: "Ann Buyer", routing_order: 1 },
          { role: "dealer", email: "dale@dealer.example", name: "Dale Dealer", routing_order: 2 },
        ],
      },
    }),
  );
  const link = (role: string) => sent.signers.find((s: { role: string }) => s.role === role).embed_url as string;
  return { envelopeId: envelope.envelope_id as string, buyerUrl: link("buyer"), dealerUrl: link("dealer") };
}

describe("Sign + Pay on the signing page", () => {
  it("the payer pays with the Payment Element after signing; the other signer never sees a payment step nor Stripe", async () => {
    const { browser, org } = suite;
    await ok(api("PATCH", `/operator/orgs/${org.orgId}`, { token: inject("operatorToken"), body: { stripe_account_id: "acct_1DealerStandIn", platform_fee_bps: 250 } }));
    const contract = await sentPayContract(org.key);

    // --- the payer
    const buyer = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    buyer.on("pageerror", (e) => errors.push(e.message));
    const stripeRequests = await interceptStripeJs(buyer);
    const response = await buyer.goto(contract.buyerUrl);
    const csp = response!.headers()["content-security-policy"]!;
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval' https://js.stripe.com https://*.js.stripe.com");
    expect(csp).toContain("frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com");
    expect(csp).toContain("connect-src 'self' https://api.stripe.com");
    const name = buyer.getByRole("textbox", { name: "Buyer name, required" });
    await name.waitFor();
    expect(stripeRequests).toEqual(["https://js.stripe.com/v3"]);
    await name.fill("Ann Buyer");
    await buyer.getByRole("button", { name: "Finish" }).click();

    // the payment step, between the submit and the finish screen
    await buyer.locator("#payment-form").waitFor();
    expect(await buyer.getByRole("heading", { name: "Payment" }).count()).toBe(1);
    expect(await buyer.locator("#payment-form").textContent()).toMatch(/\$1,500\.00/);
    await buyer.locator("#stripe-stand-in-element").waitFor();
    await expectAccessible(buyer, "payment step");
    const given = await buyer.evaluate(() => (window as unknown as { __stripeStandIn: Record<string, unknown> }).__stripeStandIn);
    expect(given.publishableKey).toBe(STRIPE_TEST_PUBLISHABLE_KEY);
    expect(given.element).toBe("payment");
    const clientSecret = given.clientSecret as string;
    const intentId = clientSecret.split("_secret_")[0]!;
    const intent = await fetch(`${inject("stripeBase")}/v1/payment_intents/${intentId}`, { headers: { authorization: `Bearer ${STRIPE_TEST_SECRET_KEY}` } }).then((r) => r.json() as Promise<any>);
    expect(intent).toMatchObject({ client_secret: clientSecret, amount: 150_000, currency: "usd", metadata: { envelope_id: contract.envelopeId } });
    await shot(buyer, "pay-1-payment-step");

    await buyer.getByRole("button", { name: /^Pay / }).click();
    await expect.poll(() => buyer.evaluate(() => (window as unknown as { __stripeStandIn: Record<string, unknown> }).__stripeStandIn.confirmed)).toMatchObject({ redirect: "if_required", withElements: true });
    // the page waits for Stripe's confirmation to reach the service before its finish screen
    await expect.poll(() => buyer.locator("#notice").textContent()).toContain("Waiting for the confirmation");
    expect(await buyer.locator("#payment-form").count()).toBe(1);
    // Stripe confirms the payment to the service
    const delivery = await fetch(`${inject("stripeBase")}/_events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "payment_intent.succeeded", payment_intent: intentId, deliver_to: `${base()}/api/v2/stripe/webhook` }),
    }).then((r) => r.json() as Promise<{ delivered: { status: number; body: string } }>);
    expect(delivery.delivered.status).toBe(200);
    expect(JSON.parse(delivery.delivered.body).data.outcome).toBe("paid");
    await expect.poll(() => buyer.locator(".final h2").textContent(), { timeout: 30_000 }).toBe("Thank you, you have signed");
    expect(await buyer.locator("#payment-form").count()).toBe(0);
    expect(errors).toEqual([]);
    await buyer.close();

    // --- the other signer: no Stripe script, today's CSP, no payment step
    const dealer = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const dealerStripe = await interceptStripeJs(dealer);
    const dealerResponse = await dealer.goto(contract.dealerUrl);
    expect(dealerResponse!.headers()["content-security-policy"]).not.toContain("stripe");
    expect(await dealerResponse!.text()).not.toContain("js.stripe.com");
    const dealerName = dealer.getByRole("textbox", { name: "Dealer name, required" });
    await dealerName.waitFor();
    await dealerName.fill("Dale Dealer");
    await dealer.getByRole("button", { name: "Finish" }).click();
    await expect.poll(() => dealer.locator(".final h2").textContent()).toBe("Thank you, you have signed");
    expect(await dealer.locator("#payment-form").count()).toBe(0);
    expect(dealerStripe).toEqual([]);
    await dealer.close();

    // paid, so the completed contract can be vaulted
    expect(await status(org.key, contract.envelopeId)).toBe("completed");
    const vaulted = await api("POST", `/partner/envelopes/${contract.envelopeId}/vault-in-signed`, { key: org.key, body: {} });
    expect(vaulted.status).toBe(200);
  });

  it("a payer who leaves after signing gets the same payment step when opening the link again", async () => {
    const { browser, org } = suite;
    await ok(api("PATCH", `/operator/orgs/${org.orgId}`, { token: inject("operatorToken"), body: { stripe_account_id: "acct_1DealerStandIn", platform_fee_bps: 250 } }));
    const contract = await sentPayContract(org.key);
    const openBuyerLink = async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await interceptStripeJs(page);
      await page.goto(contract.buyerUrl);
      return page;
    };
    const first = await openBuyerLink();
    const name = first.getByRole("textbox", { name: "Buyer name, required" });
    await name.waitFor();
    await name.fill("Ann Buyer");
    await first.getByRole("button", { name: "Finish" }).click();
    await first.locator("#stripe-stand-in-element").waitFor();
    const firstSecret = await first.evaluate(() => (window as unknown as { __stripeStandIn: { clientSecret: string } }).__stripeStandIn.clientSecret);
    await first.close(); // left without paying

    const again = await openBuyerLink();
    await again.locator("#stripe-stand-in-element").waitFor();
    const secondSecret = await again.evaluate(() => (window as unknown as { __stripeStandIn: { clientSecret: string } }).__stripeStandIn.clientSecret);
    expect(secondSecret).toBe(firstSecret);
    const stats = await fetch(`${inject("stripeBase")}/_stats?envelope_id=${contract.envelopeId}`).then((r) => r.json() as Promise<{ created: number }>);
    expect(stats.created).toBe(1);
    await again.close();
  });

  it("a payer who signed last and left before paying can still pay from the link of the completed envelope", async () => {
    const { browser, org } = suite;
    await ok(api("PATCH", `/operator/orgs/${org.orgId}`, { token: inject("operatorToken"), body: { stripe_account_id: "acct_1DealerStandIn", platform_fee_bps: 250 } }));
    const contract = await sentPayContract(org.key, "dale@dealer.example");
    const sign = async (url: string, label: string, value: string) => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await interceptStripeJs(page);
      await page.goto(url);
      const field = page.getByRole("textbox", { name: label });
      await field.waitFor();
      await field.fill(value);
      await page.getByRole("button", { name: "Finish" }).click();
      return page;
    };
    const buyer = await sign(contract.buyerUrl, "Buyer name, required", "Ann Buyer");
    await expect.poll(() => buyer.locator(".final h2").textContent()).toBe("Thank you, you have signed");
    await buyer.close();
    const dealer = await sign(contract.dealerUrl, "Dealer name, required", "Dale Dealer");
    await dealer.locator("#stripe-stand-in-element").waitFor();
    await dealer.close(); // left without paying; the envelope is completed
    expect(await status(org.key, contract.envelopeId)).toBe("completed");

    const back = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await interceptStripeJs(back);
    await back.goto(contract.dealerUrl);
    await back.locator("#stripe-stand-in-element").waitFor();
    await back.getByRole("button", { name: /^Pay / }).click();
    const secret = await back.evaluate(() => (window as unknown as { __stripeStandIn: { clientSecret: string } }).__stripeStandIn.clientSecret);
    const delivery = await fetch(`${inject("stripeBase")}/_events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "payment_intent.succeeded", payment_intent: secret.split("_secret_")[0], deliver_to: `${base()}/api/v2/stripe/webhook` }),
    }).then((r) => r.json() as Promise<{ delivered: { status: number } }>);
    expect(delivery.delivered.status).toBe(200);
    await expect.poll(() => back.locator(".final h2").textContent(), { timeout: 30_000 }).toBe("Thank you");
    await back.close();
    const vaulted = await api("POST", `/partner/envelopes/${contract.envelopeId}/vault-in-signed`, { key: org.key, body: {} });
    expect(vaulted.status).toBe(200);
  });
});
