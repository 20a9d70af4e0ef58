import { t } from "../i18n";
import { ApiFailure, callApi } from "../shared/api";
import { byId, clearNotice, h, notice } from "../shared/dom";

/**
 * Sign + Pay: the payer's payment step, right after their submit and before the finish screen
 * (docs/decisions/sign-and-pay.md). Only a page the server served with Stripe.js (`data-payment="stripe"`: the payer's
 * link, or an embedded sign widget of an envelope with a payment due) can show it; the API then
 * decides whether this signer pays. The card form is Stripe's Payment Element, from the
 * `https://js.stripe.com/v3` script Stripe requires (never bundled); card details go from Stripe's
 * frames to Stripe, never through this service.
 *
 * Credentials: the slug is traded for a short-lived `sign` embed token
 * (POST /signing/:slug/payment-token), which is what POST /embed/payment-intent and
 * /embed/payment-status take. Stripe's `return_url` (where a 3-D Secure redirect comes back) is the
 * one the server answers with the token: this signer's page under a signing session that ends with
 * the token, never the page's own address, which holds the permanent slug or the embed token.
 */

type StripeJs = {
  elements(options: { clientSecret: string; appearance?: unknown }): StripeElements;
  confirmPayment(options: { elements: StripeElements; redirect: "if_required"; confirmParams: { return_url: string } }): Promise<{ error?: { message?: string } }>;
};
type StripeElements = { create(type: "payment", options?: unknown): { mount(target: HTMLElement): void } };
type StripeFactory = (publishableKey: string) => StripeJs;

type PaymentToken = { payment_required: boolean; token?: string; return_url?: string };
type PaymentIntent = { payment_required: boolean; client_secret?: string; publishable_key?: string; amount_cents?: number; currency?: string };

const STATUS_POLLS = 20;
const POLL_MS = 1500;

/**
 * Resolves once nothing is due, or once the payer has paid (or submitted a payment Stripe is still
 * confirming): the caller then shows its finish screen. Returns whether a payment step was shown.
 */
export async function payAfterSigning(slug: string): Promise<boolean> {
  if (document.body.dataset.payment !== "stripe") return false;
  let credential: PaymentToken;
  try {
    credential = await callApi<PaymentToken>(`/api/v2/signing/${encodeURIComponent(slug)}/payment-token`, { method: "POST" });
  } catch {
    return false; // the signature is recorded either way; the sender can collect the payment otherwise
  }
  if (!credential.payment_required || !credential.token || !credential.return_url) return false;
  const token = credential.token;
  const returnUrl = credential.return_url;
  let intent: PaymentIntent;
  try {
    intent = await callApi<PaymentIntent>("/api/v2/embed/payment-intent", { method: "POST", headers: { authorization: `Bearer ${token}` } });
  } catch (err) {
    notice(t("payment_not_ready", { reason: err instanceof ApiFailure ? err.message : t("payment_try_later") }), "error");
    return false;
  }
  if (!intent.payment_required || !intent.client_secret || !intent.publishable_key) return false;
  const factory = (window as unknown as { Stripe?: StripeFactory }).Stripe;
  if (!factory) return false; // Stripe.js did not load (blocked, offline): the signature stands; opening the link again offers the payment
  const stripe = factory(intent.publishable_key);
  const elements = stripe.elements({ clientSecret: intent.client_secret });
  await new Promise<void>((done) => renderStep(stripe, elements, intent, { token, returnUrl }, done));
  return true;
}

function renderStep(stripe: StripeJs, elements: StripeElements, intent: PaymentIntent, payer: { token: string; returnUrl: string }, done: () => void) {
  const amount = formatAmount(intent.amount_cents ?? 0, intent.currency ?? "usd");
  const mount = h("div", { id: "payment-element", class: "payment-element" });
  const error = h("p", { class: "field-error", role: "alert", id: "payment-error" });
  const pay = h("button", { type: "submit", class: "primary", id: "pay" }, t("payment_pay", { amount }));
  const form = h(
    "form",
    { class: "payment-step", id: "payment-form", "aria-labelledby": "payment-title" },
    h("h2", { id: "payment-title", tabindex: -1 }, t("payment_title")),
    h("p", {}, t("payment_text", { amount })),
    mount,
    error,
    h("div", { class: "dialog-actions" }, pay),
  );
  byId("main").replaceChildren(h("section", { class: "final" }, form));
  byId("bar").querySelectorAll(".actions").forEach((el) => el.remove());
  elements.create("payment").mount(mount);
  byId("payment-title").focus();
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    pay.disabled = true;
    error.textContent = "";
    clearNotice();
    const result = await stripe.confirmPayment({ elements, redirect: "if_required", confirmParams: { return_url: payer.returnUrl } });
    if (result.error) {
      error.textContent = result.error.message ?? t("payment_failed");
      pay.disabled = false;
      return;
    }
    notice(t("payment_submitted"));
    await waitForPaid(payer.token);
    done();
  });
}

/** Stripe's confirmation reaches the service as a webhook; the page asks until it has arrived (or stops asking). */
async function waitForPaid(token: string) {
  for (let i = 0; i < STATUS_POLLS; i++) {
    try {
      const status = await callApi<{ status: string | null }>("/api/v2/embed/payment-status", { method: "POST", headers: { authorization: `Bearer ${token}` } });
      if (status.status === "paid") return;
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 401) return; // token expired: the payment itself went through
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function formatAmount(cents: number, currency: string) {
  const code = currency.toUpperCase();
  const digits = new Intl.NumberFormat("en-US", { style: "currency", currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
  return new Intl.NumberFormat(undefined, { style: "currency", currency: code }).format(cents / 10 ** digits);
}
