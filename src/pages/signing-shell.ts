import type { Context } from "hono";
import type { AppEnv } from "../lib/hono";
import { frameAncestorsCsp } from "../services/embed/frame-ancestors";
import type { Locale } from "../db/schema/locales";
// the signing page's own catalogs (plain data): the shell's words are the page's, in the envelope's language
import { PAGE_CATALOGS } from "../../web/i18n/catalogs";

export type PageMode = "link" | "embed-sign" | "embed-vault";

/**
 * Sign + Pay: what Stripe documents for Stripe.js and the Payment Element under a CSP
 * (docs.stripe.com/security/guide#content-security-policy): the script from js.stripe.com, its frames
 * from js.stripe.com and hooks.stripe.com (3D Secure), and calls to api.stripe.com. Only pages that
 * show a payment step get them; every other page keeps the policy below, with no Stripe at all.
 */
export const STRIPE_JS = "https://js.stripe.com/v3";
const STRIPE_CSP = {
  script: "https://js.stripe.com https://*.js.stripe.com",
  frame: "https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com",
  connect: "https://api.stripe.com",
};

/**
 * The HTML of the signing page and the vault widget: an empty shell whose script (web/, built into
 * /static/app by `npm run assets`) does the rest through the JSON API on the same origin. Every
 * script, style and font comes from the Worker's static assets; the CSP allows nothing else.
 * `frame-ancestors` is the organization's list of partner origins, so the page can be embedded in
 * an iframe on the partner's site and nowhere else.
 */
export function signingShell(c: Context<AppEnv>, page: { mode: PageMode; slug?: string; envelopeId?: string; frameAncestors: string[]; stripe?: boolean; locale?: Locale }) {
  const script = page.mode === "embed-vault" ? "/static/app/vault.js" : "/static/app/signing.js";
  const lang = page.locale ?? "en";
  const words = PAGE_CATALOGS[lang];
  const title = page.mode === "embed-vault" ? words.vault_page_title : words.page_title;
  c.header(
    "Content-Security-Policy",
    [
      "default-src 'none'",
      // pdf.js decodes some image formats with WebAssembly; no eval otherwise
      `script-src 'self' 'wasm-unsafe-eval'${page.stripe ? ` ${STRIPE_CSP.script}` : ""}`,
      ...(page.stripe ? [`frame-src ${STRIPE_CSP.frame}`] : []),
      "worker-src 'self'",
      "style-src 'self'",
      "img-src 'self' data: blob:",
      "font-src 'self'",
      `connect-src 'self'${page.stripe ? ` ${STRIPE_CSP.connect}` : ""}`,
      "base-uri 'none'",
      "form-action 'none'",
      frameAncestorsCsp(page.frameAncestors),
    ].join("; "),
  );
  c.header("Cache-Control", "no-store");
  c.header("Referrer-Policy", "no-referrer");
  c.header("X-Content-Type-Options", "nosniff");
  const data = [
    `data-mode="${page.mode}"`,
    page.slug ? `data-slug="${escapeAttr(page.slug)}"` : "",
    page.envelopeId ? `data-envelope-id="${escapeAttr(page.envelopeId)}"` : "",
    page.stripe ? `data-payment="stripe"` : "",
  ]
    .filter(Boolean)
    .join(" ");
  return c.html(`<!doctype html>
<html lang="${lang}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <link rel="icon" href="data:,">
  <title>${title}</title>
  <link rel="stylesheet" href="/static/app/signing.css">
${page.stripe ? `  <script src="${STRIPE_JS}"></script>\n` : ""}  <script type="module" src="${script}"></script>
</head>
<body ${data}>
  <a class="skip-link" href="#main">${words.skip_link}</a>
  <header class="bar" id="bar"><h1 id="title">${title}</h1></header>
  <div id="notice" class="notice" role="status" aria-live="polite"></div>
  <main id="main" tabindex="-1"><p class="loading">${words.loading}</p></main>
  <noscript><p class="notice notice-error">${words.noscript}</p></noscript>
</body>
</html>`);
}

const escapeAttr = (s: string) => s.replace(/[&"<>]/g, (ch) => `&#${ch.charCodeAt(0)};`);
