import type { OrgContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import { loadSealKey } from "../../pdf";
import type { OutboxEmail } from "../../providers/email";
import type { LoadedEnvelope } from "../envelopes/repository";
import { newSignerRows, planSend } from "../compose/send-envelope";
import { assertTransition } from "../envelopes/state-machine";
import { kbaStepFor, type KbaStep } from "../kba/challenge-signers";
import { planSigners, type PlannedSigner } from "../signers/plan-signers";
import { smsProvider } from "../../providers/sms";

/** What the chunk read for one of its envelopes, in the statements `readSendFacts` of send-envelope.ts would run. */
export type BulkSendFacts = { roles: string[]; hasDocument: boolean; hasPayment: boolean };

/** The send of one bulk envelope, planned, not committed: its statements, the event to publish and the invitations to deliver after the commit. */
export type PlannedBulkSend = { statements: D1PreparedStatement[]; eventId: string | null; emails: OutboxEmail[] };

/**
 * The statements `sendEnvelope` (src/services/compose/send-envelope.ts) commits for a `preparing`
 * envelope with `send_email: true`, planned from rows the chunk already read for all its envelopes at
 * once (the envelope with its chain head, its roles, the organization's name and the sender), so that a
 * chunk sends many envelopes in one D1 batch instead of five round trips each. It returns null for an
 * envelope the plain `sendEnvelope` must handle (anything unusual: a payment to check, no document,
 * a KBA provider or a usable seal missing): the chunk falls back to it, which answers exactly as a manual send would.
 *
 * The statements are `planSend`'s, the planner `sendEnvelope` commits for one envelope; the
 * invitations' emails are delivered by the caller after the commit.
 */
export async function planBulkSend(
  ctx: OrgContext,
  input: { envelope: LoadedEnvelope; facts: BulkSendFacts; orgName: string; signers: PlannedSigner[]; senderEmail: string },
): Promise<PlannedBulkSend | null> {
  const { envelope, facts } = input;
  if (envelope.status !== "preparing" || envelope.document_source === "upload" || !facts.hasDocument || facts.hasPayment) return null;
  assertTransition(envelope.status, "send");
  // the seal every completion needs (checked at submission, but the key may have gone since): without
  // it the plain send answers the 503 naming SEAL_PRIVATE_KEY / SEAL_CERTIFICATE and nothing goes out
  try {
    await loadSealKey(ctx.env);
  } catch {
    return null;
  }
  const planned = planSigners({ roles: facts.roles, customer: { email: null, name: "" }, signers: input.signers });
  // an SMS passcode signer with no usable provider: the plain send answers the 503 naming SMS_PROVIDER
  if (planned.some((s) => s.auth === "sms_otp")) {
    try {
      smsProvider(ctx.env);
    } catch {
      return null;
    }
  }
  const at = nowIso();
  const signers = newSignerRows(envelope, planned, at);
  let kba: KbaStep | null = null;
  if (envelope.kba_required === 1) {
    try {
      kba = kbaStepFor(ctx.env, ctx.db, { envelope, signers, senderEmail: input.senderEmail, at });
    } catch {
      return null; // sendEnvelope answers the 503 naming KBA_PROVIDER
    }
  }
  const send = await planSend(ctx, { envelope, planned, signers, kba, sendEmail: true, orgName: input.orgName, at });
  return { statements: send.planned.statements, eventId: send.planned.eventIds[0] ?? null, emails: send.emails };
}
