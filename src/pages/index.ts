import { Hono } from "hono";
import type { AppEnv } from "../lib/hono";
import { clientThrottle } from "../middleware/client-throttle";
import { pageFacts } from "../services/embed/frame-ancestors";
import { signingShell } from "./signing-shell";
import { pageNeedsStripe } from "../services/payments/page-needs-stripe";
import { findSignerByCredential } from "../services/signers/resolve-credential";

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
  const [facts, stripe] = signer ? await Promise.all([pageFacts(c.var.ctx, { signerId: signer.signerId }), pageNeedsStripe(c.var.ctx, { signerId: signer.signerId })]) : [null, false];
  return signingShell(c, { mode: "link", slug, frameAncestors: facts?.frameAncestors ?? [], stripe, locale: facts?.envelopeLocale ?? "en" });
}

async function widgetPage(c: PageContext, mode: "embed-sign" | "embed-vault", envelopeId: string) {
  const known = ID.test(envelopeId);
  const [facts, stripe] = await Promise.all([
    known ? pageFacts(c.var.ctx, { envelopeId }) : null,
    mode === "embed-sign" && known ? pageNeedsStripe(c.var.ctx, { envelopeId }) : false,
  ]);
  // the signing widget opens in its envelope's language, the vault widget in its organization's (its script then takes the session's)
  const locale = !facts ? "en" : mode === "embed-sign" ? facts.envelopeLocale : facts.orgLocale;
  return signingShell(c, { mode, envelopeId, frameAncestors: facts?.frameAncestors ?? [], stripe, locale });
}
