import { ApiError, unprocessable } from "../../lib/errors";
import { actingUserId, SYSTEM_ACTOR } from "../../lib/actor";
import { appendEnvelopeAudit } from "../envelopes/append-audit";
import { inOrg, type OrgContext, type RequestContext } from "../../lib/context";
import { getEnvelope } from "../envelopes/repository";
import { findUnpaidPayment } from "../payments/payment-gate";
import { vaultInSigned } from "./vault-in-signed";
import { findSignedDocument } from "../documents/repository";
import { asEvidenceLevel, atLeast, evidenceTarget, evidenceWaitMs } from "../documents/evidence";
import { getVaultConsent, readAutoVaultFacts, vaultConsentUpsert } from "./repository";
import { apiIssue } from "../../lib/validation";

/** Statuses in which consent can still matter: the envelope is not yet vaulted nor closed. */
const CONSENTABLE = ["pending", "uploaded", "preparing", "sent", "viewed", "completed"];

/**
 * Session POST /envelopes/:id/auto-vault-consent, with the semantics of the bulk-send vault consent:
 * enabling requires acknowledging that the vault will hold the authoritative copy, and stamps who
 * accepted and when (`vault_in_terms_accepted_at` / `_by`); disabling withdraws it. The change goes on
 * the envelope's audit chain. Given to an envelope that is already `completed`, it vaults it now.
 */
export async function setAutoVaultConsent(
  ctx: OrgContext,
  input: { envelopeId: string; enabled: boolean; acknowledged: boolean },
) {
  const db = ctx.db;
  if (input.enabled && !input.acknowledged) {
    throw unprocessable("Validation failed", [
      {
        code: "invalid_value",
        expected: "true",
        received: "false",
        path: ["acknowledge_authoritative_copy"],
        message: "Enabling auto-vault requires acknowledging that the vault holds the authoritative copy",
      },
    ]);
  }
  await appendEnvelopeAudit(ctx, {
    orgId: ctx.orgId,
    envelopeId: input.envelopeId,
    actor: ctx.actor,
    build: async (envelope, at) => {
      if (!CONSENTABLE.includes(envelope.status)) {
        throw unprocessable(`Cannot set auto-vault consent on an envelope with status ${envelope.status}`, [apiIssue(["envelope_id"], "an envelope not yet completed", envelope.status, `The envelope is ${envelope.status}`)]);
      }
      const acceptedAt = input.enabled ? at : null;
      const acceptedBy = input.enabled ? actingUserId(ctx.actor) : null;
      return {
        action: "envelope.auto_vault_consent",
        data: { auto_vault_enabled: input.enabled, acknowledge_authoritative_copy: input.acknowledged },
        statements: [vaultConsentUpsert(db, { envelopeId: envelope.id, orgId: envelope.org_id, enabled: input.enabled, acceptedAt, acceptedBy, at })],
      };
    },
  });
  if (input.enabled) await autoVaultIfConsented(ctx, { envelopeId: input.envelopeId });
  return autoVaultState(db, ctx.orgId, input.envelopeId);
}

export async function autoVaultState(db: D1Database, orgId: string, envelopeId: string) {
  const envelope = await getEnvelope(db, orgId, envelopeId);
  const consent = await getVaultConsent(db, envelope.id);
  return {
    envelope_id: envelope.id,
    auto_vault_enabled: consent?.auto_vault_enabled === 1,
    vault_in_terms_accepted_at: consent?.terms_accepted_at ?? null,
    vault_in_terms_accepted_by: consent?.terms_accepted_by ?? null,
    status: envelope.status,
    vaulted: envelope.vaulted_at !== null,
  };
}

/**
 * Why auto-vault should not vault yet: the signed document's seal is below the configuration's target
 * level and SEAL_EVIDENCE_WAIT_MINUTES have not passed since completion. After the bound it vaults
 * with the level reached, and the certificate says so (vault-in-signed.ts `evidenceAtVault`).
 */
async function evidenceWait(ctx: RequestContext, input: { envelopeId: string; signedAt: string | null }): Promise<string | null> {
  const signed = await findSignedDocument(ctx.db, input.envelopeId);
  const level = asEvidenceLevel(signed?.evidence_level);
  if (!signed || !level || input.signedAt === null) return null;
  const target = await evidenceTarget(ctx.env).catch(() => level);
  if (atLeast(level, target)) return null;
  const until = Date.parse(input.signedAt) + evidenceWaitMs(ctx.env);
  if (Date.now() >= until) return null;
  return `deferred until the seal reaches evidence level ${target} (now ${level}) or until ${new Date(until).toISOString()}`;
}

export type AutoVaultOutcome = { vaulted: true } | { vaulted: false; reason: string };

/**
 * The hook the signing flow calls once an envelope is `completed` (and consent calls on an already
 * completed one): with auto-vault consent, the system vaults the signed document on the consenting
 * user's behalf (audit actor `system`, `on_behalf_of` that user). Without consent, or when vaulting is
 * refused (a document that fails its hash), the envelope stays `completed` and
 * the reason is returned rather than thrown, since the caller's own change has already committed.
 * Unexpected failures (storage down) are thrown for the caller to log.
 *
 * With a requested payment still unpaid (Sign + Pay) auto-vault is deferred: nothing is vaulted and
 * the reason says so; POST /stripe/webhook runs this hook again when `payment_intent.succeeded`
 * marks the payment paid (and on every re-sent notification of a paid payment, so it is idempotent).
 */
export async function autoVaultIfConsented(ctx: RequestContext, input: { envelopeId: string }): Promise<AutoVaultOutcome> {
  const { envelopeId } = input;
  const row = await readAutoVaultFacts(ctx.db, envelopeId);
  if (!row) return { vaulted: false, reason: "envelope not found" };
  if (row.auto_vault_enabled !== 1) return { vaulted: false, reason: "no auto-vault consent" };
  if (row.status === "vaulted") return { vaulted: true };
  if (row.status !== "completed") return { vaulted: false, reason: `status ${row.status}` };
  // Paper envelopes are vaulted by their upload, which already is the vault-in.
  if (row.document_source === "upload") return { vaulted: false, reason: "paper envelopes are vaulted by vault-in-upload" };
  // Sign + Pay: deferred, not refused. The Stripe webhook calls this again once the payment is paid.
  if (await findUnpaidPayment(ctx.db, { id: envelopeId })) return { vaulted: false, reason: "deferred until the requested payment is paid" };
  // docs/evidence.md: waits for the configured evidence level (jobs/raise-evidence.ts raises it) up to the bound.
  const waiting = await evidenceWait(ctx, { envelopeId, signedAt: row.signed_at });
  if (waiting) return { vaulted: false, reason: waiting };
  try {
    await vaultInSigned({ ...inOrg(ctx, row.org_id), actor: SYSTEM_ACTOR }, { envelopeId, onBehalfOf: row.terms_accepted_by });
    return { vaulted: true };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    console.warn(JSON.stringify({ level: "warn", msg: "auto-vault refused", envelope_id: envelopeId, reason: err.message }));
    return { vaulted: false, reason: err.message };
  }
}
