import type { RequestContext } from "../../lib/context";
import type { OutboxEmail } from "../../providers/email";
import { completedCopyEmails, type CopyRecipient } from "../email/completed-copy";
import { listCcRecipients, metadataOf, type CcRecipientRow, type EnvelopeRow } from "../envelopes/repository";
import { getOrganizationName } from "../organizations/repository";
import type { SignerRow } from "../signers/repository";
import { signCopyUrl } from "./copy-url";

/** What a completion needs to queue its copies, read once before the commit's first attempt. */
export type CopyFacts = { orgName: string; cc: CcRecipientRow[] };

export async function readCopyFacts(ctx: RequestContext, envelope: Pick<EnvelopeRow, "id" | "org_id">): Promise<CopyFacts> {
  const [org, cc] = await Promise.all([getOrganizationName(ctx.global, envelope.org_id), listCcRecipients(ctx.db, envelope.id)]);
  return { orgName: org?.name ?? "The sender", cc };
}

/**
 * The `completed_copy` emails of a completion at `completedAt`, for the completing batch
 * (docs/decisions/signers-copy.md): one per address, signers first (in signing order), then the cc
 * recipients; an address that already gets one (a cc recipient who is also a signer, a person who
 * signs in two roles) gets no second. Signers of an envelope sent with `send_email: false` get none
 * (the partner carries their emails; their own link offers the download); cc recipients always do.
 */
export async function completionCopyEmails(
  ctx: RequestContext,
  input: { envelope: Pick<EnvelopeRow, "id" | "org_id" | "name" | "metadata" | "locale">; signers: SignerRow[]; facts: CopyFacts; completedAt: string },
): Promise<{ emails: OutboxEmail[]; statements: D1PreparedStatement[] }> {
  const { envelope, completedAt } = input;
  const emailSigners = metadataOf(envelope as EnvelopeRow).send_email !== false;
  const wanted = [
    ...(emailSigners ? [...input.signers].sort((a, b) => a.routing_order - b.routing_order).map((s) => ({ id: s.id, name: s.name, email: s.email, cc: false })) : []),
    ...input.facts.cc.map((c) => ({ id: c.id, name: c.name, email: c.email, cc: true })),
  ];
  const seen = new Set<string>();
  const recipients: CopyRecipient[] = [];
  for (const w of wanted) {
    const address = w.email.trim().toLowerCase();
    if (seen.has(address)) continue;
    seen.add(address);
    const link = await signCopyUrl(ctx.env, { envelopeId: envelope.id, recipientId: w.id, signedAt: completedAt });
    recipients.push({ ...w, url: link.url, expiresAt: link.expires_at });
  }
  const queued = await completedCopyEmails(ctx, { envelope, orgName: input.facts.orgName, recipients, at: completedAt });
  return { emails: queued.map((q) => q.email), statements: queued.map((q) => q.statement) };
}
