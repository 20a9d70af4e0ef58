import type { RequestContext } from "../../lib/context";
import type { Row } from "../../db/row";
import type { envelopes } from "../../db/schema/envelopes";
import { escapeHtml } from "../../lib/html";
import { signerInvitationLinkUpdate, type SignerRow } from "../signers/repository";
import { freshSigningLink } from "../signers/signing-links";
import type { OutboxEmail } from "../../providers/email";
import { queueEmail } from "./outbox";

type Invitation = { orgName: string; envelopeName: string; signerName: string; role: string; url: string; expiresAt: string | null; kba: boolean };

/** Subject, plain text and HTML of a signing invitation. The HTML carries nothing the text does not. */
export function renderInvitation(inv: Invitation): { subject: string; text: string; html: string } {
  const subject = `${inv.orgName} sent you "${inv.envelopeName}" to sign`;
  const lines = [
    `${inv.orgName} has sent you "${inv.envelopeName}" to sign (as ${inv.role}).`,
    ...(inv.kba ? ["Before the document opens you will answer a few questions that confirm your identity."] : []),
    `This link is personal to you: do not forward it.${inv.expiresAt ? ` It can be used until ${inv.expiresAt.slice(0, 10)} (UTC).` : ""}`,
  ];
  const text = [`Hello ${inv.signerName},`, "", lines[0], "", `Review and sign: ${inv.url}`, "", ...lines.slice(1), ""].join("\n");
  const html = `<!doctype html>
<html lang="en"><body style="font-family:system-ui,sans-serif;line-height:1.5">
<p>Hello ${escapeHtml(inv.signerName)},</p>
<p>${escapeHtml(lines[0]!)}</p>
<p><a href="${escapeHtml(inv.url)}" style="display:inline-block;padding:10px 18px;background:#1d4ed8;color:#fff;text-decoration:none;border-radius:4px">Review and sign</a></p>
${lines.slice(1).map((l) => `<p>${escapeHtml(l)}</p>`).join("\n")}
</body></html>`;
  return { subject, text, html };
}

/** One invitation: its email, the outbox INSERT, and the permanent link it carries, as the database keeps it. */
export type QueuedInvitation = {
  email: OutboxEmail;
  /** the outbox INSERT (`RETURNING id`: no row when this signer was already invited) */
  statement: D1PreparedStatement;
  signerId: string;
  /** the hash of the slug in this email: what a new signer row stores as `slug_hash` */
  slugHash: string;
  /**
   * For a signer row that already exists (a later routing order): stores `slugHash`, unless the
   * signer was already invited (their link must keep working). Goes right before `statement`.
   */
  issueLink: D1PreparedStatement;
};

/**
 * The invitations of `signers` (those whose turn it is), each with a signing link that carries a
 * fresh permanent slug. The slug exists only in the email: the signer row keeps its hash (a new row
 * takes `slugHash`; an existing one is updated by `issueLink`), so reading the database gives no
 * signing power.
 */
export async function invitationEmails(
  ctx: RequestContext,
  input: {
    envelope: Pick<Row<typeof envelopes>, "id" | "org_id" | "name" | "kba_required">;
    orgName: string;
    expiresAt: string | null;
    signers: SignerRow[];
    at: string;
    /** KBA envelopes: the signers who answer identity questions (customer-side); the sender is told nothing about KBA */
    kbaSignerIds?: ReadonlySet<string>;
  },
): Promise<QueuedInvitation[]> {
  const { envelope } = input;
  return Promise.all(
    input.signers.map(async (signer) => {
      const { slugHash, url } = await freshSigningLink(ctx.env, envelope);
      const content = renderInvitation({
        orgName: input.orgName,
        envelopeName: envelope.name,
        signerName: signer.name,
        role: signer.role,
        url,
        expiresAt: input.expiresAt,
        kba: envelope.kba_required === 1 && (input.kbaSignerIds?.has(signer.id) ?? true),
      });
      const queued = await queueEmail(ctx, {
        orgId: envelope.org_id,
        envelopeId: envelope.id,
        signerId: signer.id,
        kind: "invitation",
        to: { email: signer.email, name: signer.name },
        ...content,
        linkUrl: url,
        at: input.at,
      });
      const issueLink = signerInvitationLinkUpdate(ctx.db, signer.id, slugHash);
      return { ...queued, signerId: signer.id, slugHash, issueLink };
    }),
  );
}
