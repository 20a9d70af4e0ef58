import { nowIso } from "../../lib/time";
import type { OutboxEmail } from "../../providers/email";
import type { OrgContext } from "../../lib/context";
import { getEnvelope, metadataOf } from "../envelopes/repository";
import { challengedSignerIds } from "../kba/repository";
import { getOrganizationName } from "../organizations/repository";
import { listSigners, signersWhoseTurnItIs } from "../signers/repository";
import { deliverEmails } from "./deliver";
import { invitationEmails } from "./invitation";

/**
 * For the signing flow: call after a signer's completion has committed. Queues (and hands to the
 * transport) the invitations of the signers whose turn it now is, i.e. the next routing order once
 * every signer of the previous one has completed. Idempotent: a signer is invited once (unique
 * outbox index), so concurrent completions of parallel signers, retries, or a call while the turn has
 * not moved queue nothing twice. Nothing is queued for an envelope sent with `send_email: false`, or
 * one no longer `sent`/`viewed`. Returns the emails this call queued.
 */
export async function inviteNextSigners(ctx: OrgContext, input: { envelopeId: string }): Promise<OutboxEmail[]> {
  const db = ctx.db;
  const envelope = await getEnvelope(db, ctx.orgId, input.envelopeId);
  if (envelope.status !== "sent" && envelope.status !== "viewed") return [];
  if (metadataOf(envelope).send_email === false) return [];
  const due = signersWhoseTurnItIs(await listSigners(db, envelope.id));
  if (due.length === 0) return [];
  const org = await getOrganizationName(ctx.global, envelope.org_id);
  const kbaSignerIds = envelope.kba_required === 1 ? await challengedSignerIds(db, envelope.id) : undefined;
  const queued = await invitationEmails(ctx, { envelope, orgName: org!.name, expiresAt: envelope.expires_at, signers: due, at: nowIso(), kbaSignerIds });
  // each signer's link is stored right before their invitation, both skipped for one already invited
  const results = await db.batch<{ id: string }>(queued.flatMap((q) => [q.issueLink, q.statement]));
  const fresh = queued.filter((_, i) => (results[2 * i + 1]?.results.length ?? 0) > 0).map((q) => q.email);
  await deliverEmails(ctx, { emails: fresh });
  return fresh;
}
