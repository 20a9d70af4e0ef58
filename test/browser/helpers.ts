import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT } from "jose";
import { PDFDocument, StandardFonts } from "pdf-lib";
import AxeBuilder from "@axe-core/playwright";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, inject } from "vitest";
import { startPartnerSite } from "./partner-site";

export const base = () => inject("baseUrl");

const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"];

/** The Chromium the global setup found (test/browser/chromium.ts), never a downloaded browser. */
export const launchBrowser = (): Promise<Browser> => chromium.launch({ executablePath: inject("chromiumPath"), args: CHROMIUM_FLAGS });

export type Answer = { status: number; body: any };

/** One API call to the running Worker; the body is parsed JSON (or the text). */
export async function api(method: string, path: string, opts: { key?: string; token?: string; body?: unknown; form?: FormData } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.key) headers["x-api-key"] = opts.key;
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: BodyInit | undefined = opts.form;
  if (opts.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(`${base()}/api/v2${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

export async function ok(answer: Promise<Answer>) {
  const a = await answer;
  if (a.status < 200 || a.status > 299) throw new Error(`API answered ${a.status}: ${JSON.stringify(a.body)}`);
  return a.body.data;
}

const ALL_SCOPES = ["envelopes:read", "envelopes:write", "vault:read", "vault:write", "compliance:read", "esign:write"];

/** An organization with an all-scope partner key (through the operator API, as an operator would). */
export async function newOrg(name: string, opts: { frameAncestors?: string[] } = {}) {
  const token = inject("operatorToken");
  const org = await ok(api("POST", "/operator/orgs", { token, body: { name } }));
  if (opts.frameAncestors) await ok(api("PATCH", `/operator/orgs/${org.org_id}`, { token, body: { embed_frame_ancestors: opts.frameAncestors } }));
  const key = await ok(api("POST", `/operator/orgs/${org.org_id}/api-keys`, { token, body: { scopes: ALL_SCOPES, rate_limit_rpm: 10_000 } }));
  return { orgId: org.org_id as string, key: key.api_key as string };
}

/** A letter-size PDF of `pages` pages with a line of text on each. */
export async function contractPdf(pages: number, title = "Retail installment contract") {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pages; i++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`${title} - page ${i} of ${pages}`, { x: 72, y: 740, size: 16, font });
    page.drawText("The buyer agrees to pay the amount financed under the terms below.", { x: 72, y: 700, size: 11, font });
  }
  return doc.save();
}

type Area = { page: number; x: number; y: number; w: number; h: number };
export const field = (name: string, type: string, role: string, areas: Area[], extra: Record<string, unknown> = {}) => ({
  name,
  type,
  role,
  placement: { mode: "absolute", areas },
  ...extra,
});

/**
 * The two-signer retail contract: the buyer (order 1) fills every field type; the dealer (order 2)
 * signs, with a read-only title. Returns the envelope, sent, and each signer's link.
 */
export async function sentContract(key: string, opts: { buyerEmail?: string } = {}) {
  const fields = [
    field("buyer_name", "text", "buyer", [{ page: 1, x: 0.12, y: 0.16, w: 0.4, h: 0.035 }], { required: true }),
    field("buyer_phone", "text", "buyer", [{ page: 1, x: 0.56, y: 0.16, w: 0.3, h: 0.035 }]),
    field("monthly_income", "number", "buyer", [{ page: 1, x: 0.12, y: 0.24, w: 0.25, h: 0.035 }], { required: true }),
    field("first_payment", "date", "buyer", [{ page: 1, x: 0.45, y: 0.24, w: 0.3, h: 0.035 }], { required: true }),
    field("term", "select", "buyer", [{ page: 1, x: 0.12, y: 0.32, w: 0.3, h: 0.035 }], { required: true, options: ["36 months", "48 months", "60 months"] }),
    field(
      "payment_method",
      "radio",
      "buyer",
      [
        { page: 1, x: 0.12, y: 0.4, w: 0.03, h: 0.023 },
        { page: 1, x: 0.32, y: 0.4, w: 0.03, h: 0.023 },
      ],
      { required: true, options: ["ACH", "Card"] },
    ),
    field("agree_terms", "checkbox", "buyer", [{ page: 1, x: 0.12, y: 0.48, w: 0.03, h: 0.023 }], { required: true }),
    field("vin", "text", "buyer", [{ page: 1, x: 0.56, y: 0.32, w: 0.35, h: 0.035 }], { readonly: true, default_value: "1HGCM82633A004352" }),
    field("buyer_signature", "signature", "buyer", [{ page: 2, x: 0.12, y: 0.6, w: 0.35, h: 0.07 }], { required: true }),
    field("buyer_initials", "initials", "buyer", [{ page: 1, x: 0.8, y: 0.9, w: 0.1, h: 0.045 }], { required: true }),
    field("dealer_title", "text", "dealer", [{ page: 2, x: 0.55, y: 0.52, w: 0.35, h: 0.035 }], { readonly: true, default_value: "Finance Manager" }),
    field("dealer_signature", "signature", "dealer", [{ page: 2, x: 0.55, y: 0.6, w: 0.35, h: 0.07 }], { required: true }),
  ];
  const form = new FormData();
  form.append("file", new File([Buffer.from(await contractPdf(2))], "contract.pdf", { type: "application/pdf" }));
  form.append("name", "Retail installment contract");
  form.append("fields_json", JSON.stringify(fields));
  const template = await ok(api("POST", "/partner/templates", { key, form }));
  const envelope = await ok(
    api("POST", "/partner/envelopes", {
      key,
      body: { envelope_name: "Retail installment contract", customer_email: opts.buyerEmail ?? "ann@example.com", customer_name: "Ann Buyer", template_id: template.template_id },
    }),
  );
  const sent = await ok(
    api("POST", `/partner/envelopes/${envelope.envelope_id}/send`, {
      key,
      body: {
        send_email: false,
        signers: [
          { role: "buyer", email: opts.buyerEmail ?? "ann@example.com", name: "Ann Buyer", routing_order: 1 },
          { role: "dealer", email: "dale@dealer.example", name: "Dale Dealer", routing_order: 2 },
        ],
      },
    }),
  );
  const link = (role: string) => sent.signers.find((s: { role: string }) => s.role === role).embed_url as string;
  return { envelopeId: envelope.envelope_id as string, buyerUrl: link("buyer"), dealerUrl: link("dealer") };
}

export const status = async (key: string, envelopeId: string) => (await ok(api("GET", `/partner/envelopes/${envelopeId}/status`, { key }))).status as string;

export const mintEmbed = (key: string, envelopeId: string, widget: "sign" | "vault", email: string, extra: { locale?: "en" | "es" } = {}) =>
  ok(api("POST", "/embed/token", { key, body: { envelope_id: envelopeId, user_email: email, widget_type: widget, ...extra } }));

/** A token signed with the service's embed secret but already expired: what a stale link carries. */
export async function expiredEmbedToken(claims: { envelopeId: string; orgId: string; userEmail: string; widgetType: string }) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setAudience(`${base()}/embed`)
    .setIssuedAt(now - 1000)
    .setExpirationTime(now - 100)
    .sign(new TextEncoder().encode(inject("embedSecret")));
}

export const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Draws a signature-like stroke with the mouse across the element (the drawing canvas). */
export async function drawStroke(page: Page, selector: string) {
  const box = (await page.locator(selector).boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.15, box.y + box.height * 0.6);
  await page.mouse.down();
  for (let i = 1; i <= 24; i++) {
    const t = i / 24;
    await page.mouse.move(box.x + box.width * (0.15 + 0.7 * t), box.y + box.height * (0.6 - 0.25 * Math.sin(t * Math.PI * 3)));
  }
  await page.mouse.up();
}

/** Every URL the page requested, to prove the embed token never travels in one. */
export function recordRequests(page: Page) {
  const seen: { url: string; authorization?: string }[] = [];
  page.on("request", (req) => seen.push({ url: req.url(), authorization: req.headers().authorization }));
  return seen;
}

export type BrowserSuite = { browser: Browser; partner: Awaited<ReturnType<typeof startPartnerSite>>; org: { orgId: string; key: string } };

/** Chromium, a stand-in partner site on its own origin, and an organization that lets it frame the pages. */
export function browserSuite(orgName: string): BrowserSuite {
  const suite = {} as BrowserSuite;
  beforeAll(async () => {
    [suite.browser, suite.partner] = await Promise.all([launchBrowser(), startPartnerSite()]);
    suite.org = await newOrg(orgName, { frameAncestors: [suite.partner.origin] });
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.partner?.close();
  });
  return suite;
}

/** With BROWSER_SCREENSHOTS=<dir>, saves what the signer saw, to look at. */
export async function shot(page: Page, name: string) {
  const dir = process.env.BROWSER_SCREENSHOTS;
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

/**
 * WCAG 2.2 AA (docs/decisions/signing-page-languages.md): axe-core finds no violation on what the page
 * shows now (`step` names it in the failure). Stripe's own frames are not ours to fix and are excluded.
 */
export async function expectAccessible(page: Page, step: string) {
  // legacy mode: axe runs in each frame itself (the default opens a page of its own, which a page made
  // by browser.newPage, as these tests make them, does not allow)
  const result = await new AxeBuilder({ page })
    .setLegacyMode(true)
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"])
    .exclude("iframe[name^='__privateStripe']")
    .analyze();
  const found = result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  if (found.length) throw new Error(`axe found WCAG violations at "${step}":\n${found.join("\n")}`);
}

/** A phone: 390x844 CSS pixels, touch, the mobile viewport meta honoured; downloads kept for the test. */
export const phonePage = (browser: Browser) =>
  browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, locale: "en-US", acceptDownloads: true });

/**
 * A one-signer consumer contract (the borrower alone: their name and signature), sent; with
 * `consumerConsent` the E-SIGN disclosure comes first (docs/consumer-signing.md). Returns the envelope and the link.
 */
export async function sentConsumerContract(key: string, opts: { consumerConsent?: boolean; email?: string; signer?: Record<string, unknown>; extraFields?: unknown[]; locale?: "en" | "es" } = {}) {
  const email = opts.email ?? "casey@example.com";
  const form = new FormData();
  form.append("file", new File([Buffer.from(await contractPdf(1, "Vehicle retail installment sale contract"))], "contract.pdf", { type: "application/pdf" }));
  form.append("name", "Vehicle retail installment sale contract");
  form.append(
    "fields_json",
    JSON.stringify([
      field("borrower_name", "text", "borrower", [{ page: 1, x: 0.12, y: 0.2, w: 0.45, h: 0.035 }], { required: true }),
      field("borrower_signature", "signature", "borrower", [{ page: 1, x: 0.12, y: 0.6, w: 0.4, h: 0.07 }], { required: true }),
      ...(opts.extraFields ?? []),
    ]),
  );
  const template = await ok(api("POST", "/partner/templates", { key, form }));
  const envelope = await ok(
    api("POST", "/partner/envelopes", {
      key,
      body: {
        envelope_name: "Vehicle retail installment sale contract",
        customer_email: email,
        customer_name: "Casey Consumer",
        template_id: template.template_id,
        ...(opts.consumerConsent === undefined ? {} : { consumer_consent: opts.consumerConsent }),
        ...(opts.locale ? { locale: opts.locale } : {}),
      },
    }),
  );
  const sent = await ok(
    api("POST", `/partner/envelopes/${envelope.envelope_id}/send`, {
      key,
      body: { send_email: false, signers: [{ role: "borrower", email, name: "Casey Consumer", routing_order: 1, ...opts.signer }] },
    }),
  );
  const url = sent.signers[0].embed_url as string;
  return { envelopeId: envelope.envelope_id as string, url, slug: new URL(url).pathname.split("/").pop()! };
}

/** Fills every required field of sentContract's buyer (typed initials and signature), by touch. */
export async function fillBuyerRequired(page: Page) {
  await page.getByRole("textbox", { name: "Buyer name, required" }).fill("Ann Buyer");
  await page.getByRole("spinbutton", { name: "Monthly income, required" }).fill("5200");
  await page.getByLabel("First payment, required").fill("2026-12-15");
  await page.getByRole("combobox", { name: "Term, required" }).selectOption("48 months");
  await page.getByRole("radio", { name: "Payment method: Card, required" }).check();
  await page.getByRole("checkbox", { name: "Agree terms, required" }).check();
  for (const name of [/Initial: Buyer initials/, /Sign: Buyer signature/]) {
    await page.getByRole("button", { name }).tap();
    await page.getByRole("dialog").getByRole("button", { name: "Adopt and sign" }).tap();
    await page.getByRole("dialog").waitFor({ state: "hidden" });
  }
}

/**
 * The partner's webhook receiver (a local server; the dev server admits loopback webhook URLs) and a
 * key with `webhooks:write` that points the organization's legacy webhook at it.
 */
export async function webhookReceiver(orgId: string) {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      bodies.push(body);
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const key = await ok(api("POST", `/operator/orgs/${orgId}/api-keys`, { token: inject("operatorToken"), body: { scopes: ["webhooks:write"], rate_limit_rpm: 1000 } }));
  await ok(api("PATCH", "/partner/webhook", { key: key.api_key, body: { url } }));
  return {
    /** every event delivered so far, parsed */
    events: () => bodies.map((b) => JSON.parse(b) as { event_type: string; envelope_id: string | null; data: Record<string, unknown> }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
