import type { RequestContext } from "../../lib/context";
import type { Row } from "../../db/row";
import type { envelopes } from "../../db/schema/envelopes";
import { escapeHtml } from "../../lib/html";
import { signerReminderLinkUpdate, type SignerRow } from "../signers/repository";
import { freshSigningLink } from "../signers/signing-links";
import type { OutboxEmail } from "../../providers/email";
import { queueEmail } from "./outbox";

export type ReminderKind = "reminder" | "expiry_warning";

type Reminder = { kind: ReminderKind; orgName: string; envelopeName: string; signerName: string; role: string; url: string; expiresAt: string | null; kba: boolean };

/** Subject, plain text and HTML of a reminder or an expiry warning. The HTML carries nothing the text does not. */
export function renderReminder(r: Reminder): { subject: string; text: string; html: string } {
  const until = r.expiresAt ? r.expiresAt.slice(0, 10) : null;
  const subject =
    r.kind === "expiry_warning"
      ? `"${r.envelopeName}" expires${until ? ` on ${until}` : " soon"}: sign it before then`
      : `Reminder: ${r.orgName} is waiting for you to sign "${r.envelopeName}"`;
  const lead =
    r.kind === "expiry_warning"
      ? `"${r.envelopeName}", sent to you by ${r.orgName} to sign (as ${r.role}), expires${until ? ` on ${until} (UTC)` : " soon"}. After that it can no longer be signed.`
      : `${r.orgName} is still waiting for you to sign "${r.envelopeName}" (as ${r.role}).`;
  const lines = [
    lead,
    ...(r.kba ? ["Before the document opens you will answer a few questions that confirm your identity."] : []),
    "This link replaces the one in earlier emails about this document, which no longer opens it.",
    `This link is personal to you: do not forward it.${until && r.kind === "reminder" ? ` It can be used until ${until} (UTC).` : ""}`,
  ];
  const text = [`Hello ${r.signerName},`, "", lines[0], "", `Review and sign: ${r.url}`, "", ...lines.slice(1), ""].join("\n");
  const html = `<!doctype html>
<html lang="en"><body style="font-family:system-ui,sans-serif;line-height:1.5">
<p>Hello ${escapeHtml(r.signerName)},</p>
<p>${escapeHtml(lines[0]!)}</p>
<p><a href="${escapeHtml(r.url)}" style="display:inline-block;padding:10px 18px;background:#1d4ed8;color:#fff;text-decoration:none;border-radius:4px">Review and sign</a></p>
${lines.slice(1).map((l) => `<p>${escapeHtml(l)}</p>`).join("\n")}
</body></html>`;
  return { subject, text, html };
}

/** One reminder: its email, the statement that re-issues the signer's link (goes first) and the outbox INSERT. */
export type QueuedReminder = { email: OutboxEmail; signerId: string; issueLink: D1PreparedStatement; statement: D1PreparedStatement };

/**
 * The reminders (or expiry warnings) of `signers` (those whose turn it is, not finished), each with a
 * working signing link: a fresh permanent slug whose hash replaces the signer's (as an invitation's
 * does; the links of earlier emails stop working, docs/decisions/reminders.md). Both statements hold
 * only while `guard` (the envelope's reminder columns as read, `reminderMarkCondition`) does and the
 * signer has not finished. A reminder row names no signer (a signer gets several; the outbox's unique
 * (signer, kind) index ignores nulls); an expiry warning names its signer and goes once.
 */
export async function reminderEmails(
  ctx: RequestContext,
  input: {
    kind: ReminderKind;
    envelope: Pick<Row<typeof envelopes>, "id" | "org_id" | "name" | "kba_required" | "expires_at">;
    orgName: string;
    signers: SignerRow[];
    at: string;
    guard: { sql: string; binds: (string | number | null)[] };
    kbaSignerIds?: ReadonlySet<string>;
  },
): Promise<QueuedReminder[]> {
  const { envelope, kind, guard } = input;
  return Promise.all(
    input.signers.map(async (signer) => {
      const { slugHash, url } = await freshSigningLink(ctx.env, envelope);
      const content = renderReminder({
        kind,
        orgName: input.orgName,
        envelopeName: envelope.name,
        signerName: signer.name,
        role: signer.role,
        url,
        expiresAt: envelope.expires_at,
        kba: envelope.kba_required === 1 && (input.kbaSignerIds?.has(signer.id) ?? true),
      });
      const once = kind === "expiry_warning";
      const queued = await queueEmail(
        ctx,
        {
          orgId: envelope.org_id,
          envelopeId: envelope.id,
          signerId: once ? signer.id : null,
          kind,
          to: { email: signer.email, name: signer.name },
          ...content,
          linkUrl: url,
          at: input.at,
        },
        { forSignerId: signer.id, guard },
      );
      const issueLink = signerReminderLinkUpdate(ctx.db, { signerId: signer.id, slugHash, guard, onceKind: once ? kind : null });
      return { ...queued, signerId: signer.id, issueLink };
    }),
  );
}
