import { Hono } from "hono";
import type { AppEnv } from "../lib/hono";
import { clientThrottle } from "../middleware/client-throttle";
import { frameAncestorsFor } from "../services/embed/frame-ancestors";
import { signingShell } from "./signing-shell";
import { pageNeedsStripe } from "../services/payments/page-needs-stripe";
import { findSignerByCredential } from "../services/signers/resolve-credential";
import { pageLocaleFor } from "../services/envelopes/page-locale";
import { vaultPageLocaleFor } from "../services/embed/vault-page-locale";

const SLUG = /^[A-Za-z0-9_-]{16,128}$/;
const ID = /^env_[A-Za-z0-9_-]{8,64}$/;

/**
 * The browser pages on the embed host (`/embed`) and the signing host (`/sign`). Locally both are
 * path prefixes of the dev server; in production a separate hostname routed to this Worker keeps the
 * prefix (EMBED_HOST = https://embed.example.com/embed), as the storage host does.
 *
 * - `/embed/s/:slug`, `/sign/s/:slug`: a signer's link (the slug, or a signing session standing for
 *   it, is the signer's credential).
 * - `/embed/sign/:envelope_id#token=…`, `/embed/vault/:envelope_id#token=…`: the embed widgets. The
 *   token stays in the fragment: the page reads it and sends it in an Authorization header.
 * An unknown slug or id still gets the page (framed only by 'self'); the page then shows the API's
 * error, so the HTML says nothing about whether an envelope exists.
 */
export const pagesRouter = new Hono<AppEnv>()
  // Each page reads D1 (frame ancestors, payment state): flood-limited per address like the signer API.
  .get("/embed/s/:slug", clientThrottle, (c) => linkPage(c, c.req.param("slug")))
  .get("/sign/s/:slug", clientThrottle, (c) => linkPage(c, c.req.param("slug")))
  .get("/embed/sign/:envelopeId", clientThrottle, (c) => widgetPage(c, "embed-sign", c.req.param("envelopeId")))
  .get("/embed/vault/:envelopeId", clientThrottle, (c) => widgetPage(c, "embed-vault", c.req.param("envelopeId")));

type PageContext = Parameters<typeof signingShell>[0];

async function linkPage(c: PageContext, slug: string) {
  const signer = SLUG.test(slug) ? await findSignerByCredential(c.var.ctx, slug) : null;
  // Sign + Pay: Stripe.js (and its CSP) only on the page of a payer whose payment is due; the reads at once
  const [frameAncestors, stripe, locale] = signer
    ? await Promise.all([
        frameAncestorsFor(c.var.ctx, { signerId: signer.signerId }),
        pageNeedsStripe(c.var.ctx, { signerId: signer.signerId }),
        pageLocaleFor(c.var.ctx, { signerId: signer.signerId }),
      ])
    : [[], false, "en" as const];
  return signingShell(c, { mode: "link", slug, frameAncestors, stripe, locale });
}

async function widgetPage(c: PageContext, mode: "embed-sign" | "embed-vault", envelopeId: string) {
  const frameAncestors = ID.test(envelopeId) ? await frameAncestorsFor(c.var.ctx, { envelopeId }) : [];
  const stripe = mode === "embed-sign" && ID.test(envelopeId) && (await pageNeedsStripe(c.var.ctx, { envelopeId }));
  // the signing widget opens in its envelope's language, the vault widget in its organization's (its script then takes the session's)
  const locale = !ID.test(envelopeId) ? "en" : mode === "embed-sign" ? await pageLocaleFor(c.var.ctx, { envelopeId }) : await vaultPageLocaleFor(c.var.ctx, { envelopeId });
  return signingShell(c, { mode, envelopeId, frameAncestors, stripe, locale });
}
