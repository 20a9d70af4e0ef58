import type { RequestContext } from "../../lib/context";
import type { OutboxEmail } from "../../providers/email";
import { renderLinkEmail, type RenderedEmail } from "./link-email";
import { queueEmail } from "./outbox";
import { emailDate, emailText } from "./catalog";
import type { Locale } from "../../db/schema/locales";

/** One recipient of the completed copy: a signer (`sgn_…`) or a cc recipient (`ccr_…`), with their copy link. */
export type CopyRecipient = { id: string; name: string; email: string; cc: boolean; url: string; expiresAt: string };

type CompletedCopy = { orgName: string; envelopeName: string; recipientName: string; cc: boolean; url: string; expiresAt: string; locale?: Locale };

/** Subject, plain text and HTML of the completed copy (./link-email.ts), in the envelope's locale. */
export function renderCompletedCopy(c: CompletedCopy): RenderedEmail {
  const locale = c.locale ?? "en";
  const v = { org: c.orgName, envelope: c.envelopeName, date: emailDate(locale, c.expiresAt) };
  return renderLinkEmail({
    locale,
    subject: emailText(locale, "copy_subject", v),
    name: c.recipientName,
    lines: [emailText(locale, c.cc ? "copy_lead_cc" : "copy_lead_signer", v), emailText(locale, "copy_until", v), emailText(locale, "copy_personal")],
    action: emailText(locale, "copy_action"),
    url: c.url,
  });
}

/**
 * The `completed_copy` emails of an envelope's completion (docs/consumer-signing.md), for the completion's own
 * batch: one per recipient, the row naming the recipient's id as `signer_id` (a cc recipient's
 * `ccr_…` too), so the outbox's unique (signer_id, kind) index makes a second one a no-op. The link is
 * stored withheld and sealed as every email link is (./link-at-rest.ts).
 */
export async function completedCopyEmails(
  ctx: RequestContext,
  input: { envelope: { id: string; org_id: string; name: string; locale: Locale }; orgName: string; recipients: CopyRecipient[]; at: string },
): Promise<{ email: OutboxEmail; statement: D1PreparedStatement }[]> {
  return Promise.all(
    input.recipients.map((r) =>
      queueEmail(ctx, {
        orgId: input.envelope.org_id,
        envelopeId: input.envelope.id,
        signerId: r.id,
        kind: "completed_copy",
        to: { email: r.email, name: r.name },
        ...renderCompletedCopy({ orgName: input.orgName, envelopeName: input.envelope.name, recipientName: r.name, cc: r.cc, url: r.url, expiresAt: r.expiresAt, locale: input.envelope.locale }),
        linkUrl: r.url,
        at: input.at,
      }),
    ),
  );
}
