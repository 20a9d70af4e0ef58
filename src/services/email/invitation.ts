import type { RequestContext } from "../../lib/context";
import type { Row } from "../../db/row";
import type { envelopes } from "../../db/schema/envelopes";
import { signerInvitationLinkUpdate, type SignerRow } from "../signers/repository";
import type { OutboxEmail } from "../../providers/email";
import { queueSigningLinkEmail, renderLinkEmail, type RenderedEmail } from "./link-email";
import { emailDate, emailText } from "./catalog";
import type { Locale } from "../../db/schema/locales";

type Invitation = { orgName: string; envelopeName: string; signerName: string; role: string; url: string; expiresAt: string | null; kba: boolean; locale?: Locale };

/** Subject, plain text and HTML of a signing invitation (./link-email.ts), in the envelope's locale. */
export function renderInvitation(inv: Invitation): RenderedEmail {
  const locale = inv.locale ?? "en";
  const v = { org: inv.orgName, envelope: inv.envelopeName, role: inv.role };
  return renderLinkEmail({
    locale,
    subject: emailText(locale, "invitation_subject", v),
    name: inv.signerName,
    lines: [
      emailText(locale, "invitation_lead", v),
      ...(inv.kba ? [emailText(locale, "kba_notice")] : []),
      [emailText(locale, "link_personal"), ...(inv.expiresAt ? [emailText(locale, "link_until", { date: emailDate(locale, inv.expiresAt) })] : [])].join(" "),
    ],
    action: emailText(locale, "action_sign"),
    url: inv.url,
  });
}

/**
 * One invitation to `signer` with a fresh permanent slug: the email, its outbox INSERT and the slug's
 * hash. `signerId` is what the outbox row records (null for a re-sent one, ../corrections/reissue.ts).
 */
export function queueInvitation(
  ctx: RequestContext,
  input: {
    envelope: Pick<Row<typeof envelopes>, "id" | "org_id" | "name" | "kba_required" | "locale">;
    orgName: string;
    expiresAt: string | null;
    signer: Pick<SignerRow, "name" | "email" | "role">;
    signerId: string | null;
    kba: boolean;
    at: string;
  },
) {
  const { envelope, signer } = input;
  return queueSigningLinkEmail(ctx, {
    envelope,
    to: { email: signer.email, name: signer.name },
    signerId: input.signerId,
    kind: "invitation",
    at: input.at,
    render: (url) =>
      renderInvitation({ orgName: input.orgName, envelopeName: envelope.name, signerName: signer.name, role: signer.role, url, expiresAt: input.expiresAt, kba: input.kba, locale: envelope.locale }),
  });
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
    envelope: Pick<Row<typeof envelopes>, "id" | "org_id" | "name" | "kba_required" | "locale">;
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
      const kba = envelope.kba_required === 1 && (input.kbaSignerIds?.has(signer.id) ?? true);
      const { slugHash, ...queued } = await queueInvitation(ctx, { envelope, orgName: input.orgName, expiresAt: input.expiresAt, signer, signerId: signer.id, kba, at: input.at });
      const issueLink = signerInvitationLinkUpdate(ctx.db, signer.id, slugHash);
      return { ...queued, signerId: signer.id, slugHash, issueLink };
    }),
  );
}
