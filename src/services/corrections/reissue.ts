import type { RequestContext } from "../../lib/context";
import { ApiError, conflict, type ErrorCodesByStatus, notFound } from "../../lib/errors";
import { queueInvitation } from "../email/invitation";
import { getEnvelope, type LoadedEnvelope } from "../envelopes/repository";
import { getKbaCheck, type KbaCheckRow } from "../kba/repository";
import { getOrganizationName } from "../organizations/repository";
import { getEnvelopeSigner, listSigners, signersWhoseTurnItIs, type SignerRow } from "../signers/repository";
import { freshSigningLink } from "../signers/signing-links";
import type { OutboxEmail } from "../../providers/email";

/** One re-sent invitation per signer per this long (docs/consumer-signing.md). */
export const RESEND_INTERVAL_MS = 10 * 60 * 1000;

/** What a correction or a re-send reads, fresh on each attempt. */
export type ReissueState = { envelope: LoadedEnvelope; signer: SignerRow; signers: SignerRow[]; kbaCheck: KbaCheckRow | null; orgName: string };

/** The envelope (404 in another organization), the signer (404 unless one of its signers), its co-signers and KBA check. */
export async function readReissueState(ctx: RequestContext & { orgId: string }, input: { envelopeId: string; signerId: string }): Promise<ReissueState> {
  const envelope = await getEnvelope(ctx.db, ctx.orgId, input.envelopeId);
  const [signer, signers, kbaCheck, org] = await Promise.all([
    getEnvelopeSigner(ctx.db, envelope.id, input.signerId),
    listSigners(ctx.db, envelope.id),
    getKbaCheck(ctx.db, input.signerId),
    getOrganizationName(ctx.global, envelope.org_id),
  ]);
  if (!signer) throw notFound("Signer");
  return { envelope, signer, signers, kbaCheck, orgName: org?.name ?? "" };
}

/**
 * 409 unless the signer can still act: the envelope out for signature (`sent` or `viewed`, its
 * `expires_at` not passed even if the expiry job has not run yet) and the signer not finished.
 */
export function assertReissuable(state: ReissueState, at: string): void {
  const { envelope, signer } = state;
  if (envelope.status !== "sent" && envelope.status !== "viewed") {
    throw conflict(`The envelope is ${envelope.status}: only a sent envelope's signers can be corrected or re-invited`, { status: envelope.status }, "envelope_closed");
  }
  if (envelope.expires_at && envelope.expires_at <= at) {
    throw conflict("The envelope has expired: its signers can no longer be corrected or re-invited", { status: "expired", expires_at: envelope.expires_at }, "envelope_closed");
  }
  if (signer.status === "completed" || signer.status === "declined") {
    throw conflict(`This signer has ${signer.status}: a finished signer can no longer be corrected or re-invited`, { signer_status: signer.status }, "signer_finished");
  }
}

export const isTheirTurn = (state: ReissueState) => signersWhoseTurnItIs(state.signers).some((s) => s.id === state.signer.id);

/** When the signer may next be re-sent an invitation, given the last re-send (null: now). */
export const nextResendAt = (lastResentAt: string | null) => (lastResentAt ? new Date(Date.parse(lastResentAt) + RESEND_INTERVAL_MS).toISOString() : null);

/** 429 with `Retry-After` (lib/error-handler.ts) while the signer's last re-send is under 10 minutes old. */
export function assertResendAllowed(signer: Pick<SignerRow, "last_resent_at">, at: string): void {
  const next = nextResendAt(signer.last_resent_at);
  if (next && next > at) {
    const retryAfter = Math.max(1, Math.ceil((Date.parse(next) - Date.parse(at)) / 1000));
    throw new ApiError(
      429,
      "This signer's invitation was re-sent less than 10 minutes ago; try again later",
      { retry_after: retryAfter, next_resend_at: next },
      "resend_too_soon",
    );
  }
}

/**
 * A new invitation to `signer` (as it will be after the change) with a fresh permanent slug: the email
 * and its outbox INSERT, and the slug's hash for the signer row (the old slug dies with the update).
 * The row is stored without `signer_id`: the outbox keeps one `(signer_id, kind)` per signer (the
 * first invitation, which the signing flow queues idempotently), and this one must not be swallowed
 * by it. It keeps `envelope_id`, `to_email` and `kind = 'invitation'`.
 */
export async function reinvitation(
  ctx: RequestContext,
  input: { envelope: LoadedEnvelope; orgName: string; signer: Pick<SignerRow, "id" | "name" | "email" | "role">; kba: boolean; send: boolean; at: string },
): Promise<{ slugHash: string; email: OutboxEmail | null; statement: D1PreparedStatement | null }> {
  const { envelope } = input;
  if (!input.send) return { slugHash: (await freshSigningLink(ctx.env, envelope)).slugHash, email: null, statement: null };
  return queueInvitation(ctx, { envelope, orgName: input.orgName, expiresAt: envelope.expires_at, signer: input.signer, signerId: null, kba: input.kba, at: input.at });
}

/** The answer of a correction or a re-send. */
export function reissuedSigner(signer: SignerRow, invitationSent: boolean) {
  return {
    signer_id: signer.id,
    email: signer.email,
    name: signer.name,
    phone: signer.phone,
    role: signer.role,
    routing_order: signer.routing_order,
    status: signer.status,
    invitation_sent: invitationSent,
    next_resend_at: nextResendAt(signer.last_resent_at),
  };
}

/** What re-issuing a signer's invitation answers: a closed envelope, a signer who already finished, a re-send too soon. */
export const REISSUE_ERRORS: ErrorCodesByStatus = { 409: ["envelope_closed", "signer_finished"], 429: ["resend_too_soon"] };
