import type { RequestContext } from "../../lib/context";
import type { Row } from "../../db/row";
import type { envelopes } from "../../db/schema/envelopes";
import type { EmailKind } from "../../db/schema";
import { escapeHtml } from "../../lib/html";
import type { OutboxEmail } from "../../providers/email";
import { freshSigningLink } from "../signers/signing-links";
import { queueEmail } from "./outbox";
import type { Locale } from "../../db/schema/locales";
import { emailText } from "./catalog";

export type RenderedEmail = { subject: string; text: string; html: string };

/** The line a KBA-challenged signer's invitation or reminder carries (English; the catalogs have each locale's). */
export const KBA_NOTICE = emailText("en", "kba_notice");

/**
 * The one layout of an email with a call to action (invitation, reminder, completed copy), in the
 * envelope's locale (./catalog.ts): the greeting, the lead line, the link as `action`, then the other lines. The HTML carries nothing the
 * text does not, and escapes everything.
 */
export function renderLinkEmail(m: { subject: string; name: string; lines: [string, ...string[]]; action: string; url: string; locale?: Locale }): RenderedEmail {
  const locale = m.locale ?? "en";
  const [lead, ...rest] = m.lines;
  const greeting = emailText(locale, "greeting", { name: m.name });
  const text = [greeting, "", lead, "", `${m.action}: ${m.url}`, "", ...rest, ""].join("\n");
  const html = `<!doctype html>
<html lang="${locale}"><body style="font-family:system-ui,sans-serif;line-height:1.5">
<p>${escapeHtml(greeting)}</p>
<p>${escapeHtml(lead)}</p>
<p><a href="${escapeHtml(m.url)}" style="display:inline-block;padding:10px 18px;background:#1d4ed8;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(m.action)}</a></p>
${rest.map((l) => `<p>${escapeHtml(l)}</p>`).join("\n")}
</body></html>`;
  return { subject: m.subject, text, html };
}

/**
 * One email carrying a signer's new permanent link (an invitation, a re-sent invitation, a reminder):
 * a fresh slug (`freshSigningLink`), the email `render` makes around its URL, and its outbox INSERT
 * (`only`: as `queueEmail`'s). `slugHash` is what the signer row stores for the link to work.
 */
export async function queueSigningLinkEmail(
  ctx: RequestContext,
  input: {
    envelope: Pick<Row<typeof envelopes>, "id" | "org_id" | "kba_required">;
    to: { email: string; name: string };
    /** what the outbox row records as `signer_id` (its unique (signer_id, kind) index ignores nulls) */
    signerId: string | null;
    kind: EmailKind;
    at: string;
    render: (url: string) => RenderedEmail;
  },
  only?: Parameters<typeof queueEmail>[2],
): Promise<{ email: OutboxEmail; statement: D1PreparedStatement; slugHash: string }> {
  const { envelope } = input;
  const { slugHash, url } = await freshSigningLink(ctx.env, envelope);
  const queued = await queueEmail(
    ctx,
    { orgId: envelope.org_id, envelopeId: envelope.id, signerId: input.signerId, kind: input.kind, to: input.to, ...input.render(url), linkUrl: url, at: input.at },
    only,
  );
  return { ...queued, slugHash };
}
