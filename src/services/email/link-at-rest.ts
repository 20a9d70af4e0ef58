import type { Env } from "../../env";
import { escapeHtml } from "../../lib/html";
import { redactPath } from "../../lib/redact";
import { requireSecret } from "../../lib/secrets";
import { openText, sealText } from "../../lib/sealed-text";

/**
 * An email's link at rest in the outbox (docs/decisions/email-links-at-rest.md). An invitation's link
 * carries the signer's permanent slug, which the database must not hand out: the row stores the email
 * with the link withheld (`…/s/[slug]`, as logs write it) and the link itself sealed (AES-GCM, a key
 * derived from EMBED_TOKEN_SECRET for this purpose, bound to the email's id). Only the transport's
 * path (the retry job) and the development-only outbox page open it; once the email is delivered the
 * seal is dropped, so after that not even the key recovers the link.
 */
const LABEL = "email-outbox-link/v1";

export type StoredLink = { text: string; html: string; linkShown: string; linkSealed: string };

/**
 * The link as the row shows it: the signing credential in its path replaced by `[slug]`, and a signed
 * link's signature (`sig=`, the completed copy's: copies/copy-url.ts) by `[sig]`.
 */
export function withheldUrl(url: string): string {
  const at = url.indexOf("://");
  const pathStart = at < 0 ? 0 : url.indexOf("/", at + 3);
  const shown = pathStart < 0 ? url : url.slice(0, pathStart) + redactPath(url.slice(pathStart));
  return shown.replace(/([?&]sig=)[^&#]*/g, "$1[sig]");
}

/** Every occurrence of `from` in an HTML body, as an escaped attribute or text and as written. */
const replaceInHtml = (html: string, from: string, to: string) => html.replaceAll(escapeHtml(from), escapeHtml(to)).replaceAll(from, to);

/** What the outbox stores of an email whose text and html carry `url`. */
export async function withholdLink(env: Env, input: { emailId: string; url: string; text: string; html: string }): Promise<StoredLink> {
  const secret = requireSecret(env, "EMBED_TOKEN_SECRET");
  const shown = withheldUrl(input.url);
  return {
    text: input.text.replaceAll(input.url, shown),
    html: replaceInHtml(input.html, input.url, shown),
    linkShown: shown,
    linkSealed: await sealText({ secret, label: LABEL, context: input.emailId, plain: input.url }),
  };
}

/**
 * The email as it is delivered: the sealed link opened and put back where the row shows it withheld.
 * Null when the seal does not open (EMBED_TOKEN_SECRET changed since the email was queued, or the row
 * was altered): there is then no link to send.
 */
export async function restoreLink(
  env: Env,
  input: { emailId: string; text: string; html: string; linkShown: string; linkSealed: string },
): Promise<{ text: string; html: string; url: string } | null> {
  const secret = requireSecret(env, "EMBED_TOKEN_SECRET");
  const url = await openText({ secret, label: LABEL, context: input.emailId, sealed: input.linkSealed });
  if (url === null) return null;
  return { text: input.text.replaceAll(input.linkShown, url), html: replaceInHtml(input.html, input.linkShown, url), url };
}
