import { conflict, unprocessable } from "../../lib/errors";
import { newShardId, shardOf } from "../../lib/shards";
import { getOrganizationName } from "../organizations/repository";
import { addDays } from "../../lib/time";
import type { OrgContext, RequestContext } from "../../lib/context";
import { assertEmailCanLeave, type OutboxEmail } from "../../providers/email";
import { loadSealKey } from "../../pdf";
import { deliverEmails } from "../email/deliver";
import { invitationEmails } from "../email/invitation";
import { kbaStepFor, senderEmailOf, type KbaStep } from "../kba/challenge-signers";
import { planSigners, type PlannedSigner } from "../signers/plan-signers";
import { assertPayerIsSigner } from "../payments/assert-payer-is-signer";
import { insertSigner, signersWhoseTurnItIs, type SignerRow } from "../signers/repository";
import { unissuedSlugHash } from "../signers/slug";
import type { SendEnvelopeInput } from "../signers/schema";
import { getEnvelope, markSendEmailStatement, type LoadedEnvelope } from "../envelopes/repository";
import { assertTransition, canTransition } from "../envelopes/state-machine";
import { commitEnvelopeChange, planChange, type EnvelopeChange, type PlannedChange } from "../envelopes/commit";
import { apiIssue } from "../../lib/validation";
import { smsProvider } from "../../providers/sms";
import { insertSignerOtp } from "../otp/repository";
import { maskPhone } from "../otp/mask-phone";

/** A planned signer as the audit and `envelope.sent` name them: the phone masked (docs/decisions/sms-otp.md). */
const plannedForAudit = (s: PlannedSigner) => (s.phone ? { ...s, phone: maskPhone(s.phone) } : s);

/**
 * What a send needs to know besides the envelope: the organization's name from the global database and,
 * concurrently, the envelope's facts from its shard in one round trip (docs/decisions/shards.md 3: no
 * statement reads both).
 */
// SQL exception: three owners' rows (fields, document, customer) in one batch, the round trip bulk
// send repeats per envelope; split by owner it would be three.
async function readSendFacts(ctx: RequestContext, envelope: { id: string; org_id: string; customer_id: string }) {
  const db = ctx.db;
  const [org, [roles, document, customer]] = await Promise.all([
    getOrganizationName(ctx.global, envelope.org_id),
    db.batch([
      db.prepare("SELECT role FROM envelope_fields WHERE envelope_id = ? GROUP BY role ORDER BY MIN(seq)").bind(envelope.id),
      db.prepare("SELECT 1 AS present FROM envelope_documents WHERE envelope_id = ? AND kind = 'original'").bind(envelope.id),
      db.prepare("SELECT name, email FROM customers WHERE id = ?").bind(envelope.customer_id),
    ]),
  ]);
  return {
    roles: (roles!.results as { role: string }[]).map((r) => r.role),
    hasDocument: document!.results.length > 0,
    orgName: org?.name ?? "",
    customer: customer!.results[0] as { name: string; email: string | null },
  };
}

/**
 * POST …/send (docs/decisions/envelope-state-machine.md): attaches the signers and sends. From `pending` or `uploaded` the envelope
 * moves to `preparing` and on to `sent` in one batch (from `preparing`, bulk send's state, straight to
 * `sent`), together with the signer rows, `expires_at`, the `envelope.sent` event and the invitations
 * of the first routing order. The send guards on the status and audit sequence it read, so of two
 * concurrent sends one commits and the other is a 409 (or a 422 naming `sent`). Later routing orders
 * are invited by `inviteNextSigners` as the signing flow completes each order.
 *
 * KBA envelopes are sent only by email (the signer verifies on the signing host, where their link
 * points); the KBA step itself runs on the signing page.
 */
export async function sendEnvelope(ctx: OrgContext, input: { envelopeId: string; body: SendEnvelopeInput }) {
  const db = ctx.db;
  const { body } = input;
  const { result, updated } = await commitEnvelopeChange(ctx, {
    read: () => getEnvelope(db, ctx.orgId, input.envelopeId),
    envelopeOf: (envelope) => envelope,
    plan: async (envelope, at) => {
      if (envelope.document_source === "upload") {
        throw conflict(`Paper envelopes are signed outside the service and never sent: vault the signed document through POST /partner/envelopes/${envelope.id}/vault-in-upload`, { document_source: "upload" });
      }
      const preparing = canTransition(envelope.status, "prepare");
      if (!preparing) assertTransition(envelope.status, "send");
      const facts = await readSendFacts(ctx, envelope);
      if (!facts.hasDocument) {
        throw unprocessable("The envelope has no document to sign: attach one before sending", [apiIssue(["document"], "an attached document or a template", "none", "The envelope has no document to sign")]);
      }
      if (envelope.kba_required === 1 && !body.send_email) {
        throw unprocessable("KBA envelopes are sent by email: send_email cannot be false, because the signer verifies their identity on the signing host before the document opens", [
          { code: "invalid_value", expected: "true", received: "false", path: ["send_email"], message: "send_email: false is not allowed for an envelope that requires KBA" },
        ]);
      }
      // before anything commits: a send whose invitations could never leave is refused, not half done
      if (body.send_email) assertEmailCanLeave(ctx.env);
      // the seal every completion needs: a missing or unusable SEAL_PRIVATE_KEY / SEAL_CERTIFICATE is a 503
      // naming it here, at send, never a configuration error met by the last signer's submit
      await loadSealKey(ctx.env);
      const planned = planSigners({ roles: facts.roles, customer: facts.customer, signers: body.signers });
      // a signer who must verify by text message: 503 naming SMS_PROVIDER now, never a link that cannot open
      if (planned.some((s) => s.auth === "sms_otp")) smsProvider(ctx.env);
      await assertPayerIsSigner(db, envelope.id, planned.map((s) => s.email));
      const signers = newSignerRows(envelope, planned, at);
      const kba = envelope.kba_required === 1 ? kbaStepFor(ctx.env, db, { envelope, signers, senderEmail: await senderEmailOf(ctx.global, ctx.actor), at }) : null;
      const send = await sendChange(ctx, { envelope, prepare: preparing, planned, signers, kba, sendEmail: body.send_email, orgName: facts.orgName, at });
      return { change: send.change, result: { signers, emails: send.emails } };
    },
  });
  await deliverEmails(ctx, { emails: result.emails });
  return { envelope: updated, signers: result.signers };
}

/**
 * The signer rows of a send: fresh ids, and no permanent link yet: each signer's invitation mints
 * the slug it carries and stores its hash (services/email/invitation.ts).
 */
export function newSignerRows(envelope: { id: string; org_id: string }, planned: PlannedSigner[], at: string): SignerRow[] {
  return planned.map((s) => ({
    id: newShardId("signer", shardOf(envelope.id)),
    envelope_id: envelope.id,
    org_id: envelope.org_id,
    role: s.role,
    email: s.email,
    name: s.name,
    routing_order: s.routing_order,
    status: "pending",
    consent_given_at: null,
    slug_hash: unissuedSlugHash(),
    viewed_at: null,
    signed_at: null,
    phone: s.phone ?? null,
    last_resent_at: null,
    created_at: at,
  }));
}

/**
 * The `send` of an envelope (after its `prepare` when it is not yet `preparing`), as a change not yet
 * committed: the move (status, `envelope.send` audit entry with who it went to and the KBA challenge,
 * the `envelope.sent` event), then the signer rows, the KBA checks, `metadata.send_email` and the
 * invitations of the first routing order (their emails are delivered by the caller after the commit).
 * `sendEnvelope` commits it for one envelope; bulk send plans many (`planSend`) into one batch.
 */
export async function sendChange(
  ctx: RequestContext,
  input: { envelope: LoadedEnvelope; prepare: boolean; planned: PlannedSigner[]; signers: SignerRow[]; kba: KbaStep | null; sendEmail: boolean; orgName: string; at: string },
): Promise<{ change: EnvelopeChange; emails: OutboxEmail[] }> {
  const { envelope, kba, signers, at } = input;
  const db = ctx.db;
  const expiresAt = addDays(at, envelope.expires_in_days);
  const invitations = input.sendEmail
    ? await invitationEmails(ctx, { envelope, orgName: input.orgName, expiresAt, signers: signersWhoseTurnItIs(signers), at, kbaSignerIds: kba?.challengedIds })
    : [];
  // a signer invited now is inserted with the hash of the slug their invitation carries
  const issued = new Map(invitations.map((i) => [i.signerId, i.slugHash]));
  const change: EnvelopeChange = {
    moves: [
      ...(input.prepare ? [{ action: "prepare" as const, data: { signers: signers.length } }] : []),
      {
        action: "send",
        set: { expires_at: expiresAt },
        // Who it went to, for the receiver and the audit trail; never the slugs (they are credentials).
        data: { expires_at: expiresAt, send_email: input.sendEmail, signers: input.planned.map(plannedForAudit), ...(kba ? { kba: { provider: kba.provider, challenged: kba.challengedEmails } } : {}) },
      },
    ],
    statements: [
      ...signers.map((s) => insertSigner(db, { ...s, slug_hash: issued.get(s.id) ?? s.slug_hash })),
      ...(kba?.statements ?? []),
      // SMS one-time passcode (docs/decisions/sms-otp.md): its row is what gates the document
      ...signers.filter((_, i) => input.planned[i]?.auth === "sms_otp").map((s) => insertSignerOtp(db, s, at)),
      // Internal metadata (never shown to partners): later routing orders are emailed only if this one was.
      markSendEmailStatement(db, envelope.id, input.sendEmail),
      ...invitations.map((i) => i.statement),
    ],
    at,
  };
  return { change, emails: invitations.map((i) => i.email) };
}

/** `sendChange` planned against the envelope as read, for a caller that commits many sends in one batch (bulk send). */
export async function planSend(
  ctx: RequestContext,
  input: Omit<Parameters<typeof sendChange>[1], "prepare">,
): Promise<{ planned: PlannedChange; emails: OutboxEmail[] }> {
  const send = await sendChange(ctx, { ...input, prepare: false });
  return { planned: await planChange(ctx, input.envelope, send.change, input.at), emails: send.emails };
}
