import type { SecuredParty } from "../../db/schema";
import { canonicalJson, sha256Hex } from "../../lib/crypto";
import { conflict } from "../../lib/errors";
import type { OrgContext } from "../../lib/context";
import { findSignedDocument } from "../documents/repository";
import { asEvidenceLevel, atLeast, evidenceTarget, evidenceWaitMs, type EvidenceLevel } from "../documents/evidence";
import { evidenceLevelOf } from "../../pdf";
import type { Env } from "../../env";
import type { CertificateEvidence } from "./certificate";
import { getEnvelope, securedPartyOf, type LoadedEnvelope } from "../envelopes/repository";
import { assertTransition } from "../envelopes/state-machine";
import { assertNoUnpaidPayment } from "../payments/payment-gate";
import { vaultDocument } from "./vault-document";
import { assertVaultEndpoint } from "./wrong-endpoint";

/**
 * E-sign path: vaults the signed document the signing flow stored for a `completed` envelope. Already
 * vaulted is 200 with the envelope (idempotent); any other status is 422 naming it.
 */
export async function vaultInSigned(
  ctx: OrgContext,
  input: { envelopeId: string; securedParty?: SecuredParty; onBehalfOf?: string | null },
): Promise<LoadedEnvelope> {
  const db = ctx.db;
  const envelope = await getEnvelope(db, ctx.orgId, input.envelopeId);
  assertVaultEndpoint(envelope, "vault-in-signed");
  if (envelope.status === "vaulted") return envelope;
  assertTransition(envelope.status, "vault");
  await assertNoUnpaidPayment(db, envelope);
  const securedParty = securedPartyToSet(envelope, input.securedParty);

  const signed = await findSignedDocument(db, envelope.id);
  const object = signed ? await ctx.env.DOCS.get(signed.r2_key) : null;
  if (!signed || !object) throw conflict("No signed document is stored for this envelope yet; it cannot be vaulted");
  const bytes = new Uint8Array(await object.arrayBuffer());
  const hash = await sha256Hex(bytes);
  if (hash !== signed.sha256) {
    // The bytes changed after signing: vaulting them would certify an altered document.
    console.error(JSON.stringify({ level: "error", msg: "signed document does not match its recorded hash", envelope_id: envelope.id }));
    throw conflict("The signed document no longer matches the SHA-256 recorded when it was signed; it was not vaulted");
  }
  // the level recorded at completion (or raised since); a document sealed before levels were recorded is read from its bytes
  const level = asEvidenceLevel(signed.evidence_level) ?? (await evidenceLevelOf([bytes]).catch(() => null));
  // no seal in the bytes at all: no level to state (as for a paper upload)
  const evidence = level ? await evidenceAtVault(ctx.env, { level, signedAt: envelope.signed_at, now: new Date() }) : undefined;
  return vaultDocument(ctx, { envelope, bytes, hash, source: "signed", onBehalfOf: input.onBehalfOf, securedParty, evidence });
}

/**
 * What the vault record and certificate say of the vaulted bytes' evidence (docs/evidence.md): their
 * level and, when below the configuration's target, the target and why they were vaulted as they are.
 * Auto-vault waits up to SEAL_EVIDENCE_WAIT_MINUTES for the target (auto-vault.ts); a partner's
 * explicit vault-in vaults at once with what there is (docs/decisions/evidence-levels-in-service.md).
 */
export async function evidenceAtVault(env: Env, input: { level: EvidenceLevel; signedAt: string | null; now: Date }): Promise<CertificateEvidence> {
  const target = await evidenceTarget(env).catch(() => input.level);
  if (atLeast(input.level, target)) return { evidence_level: input.level };
  const waitMs = evidenceWaitMs(env);
  const waited = input.signedAt !== null && input.now.getTime() - Date.parse(input.signedAt) >= waitMs;
  const reason = waited
    ? `The timestamp authority or OCSP responder did not answer within ${waitMs / 60_000} minutes of completion (SEAL_EVIDENCE_WAIT_MINUTES); the document was vaulted at the level reached.`
    : "Vaulted on request before the seal's evidence was raised to the configured level (a timestamp authority or OCSP responder outage at completion).";
  return { evidence_level: input.level, evidence_level_target: target, evidence_level_reason: reason };
}

/**
 * The body's `secured_party` names the secured party (UCC check 8) when the envelope has none. An
 * envelope that already names a different one keeps it: changing the assignee at vault time would be
 * an amendment outside an audited assignment, so it is refused with 409.
 */
function securedPartyToSet(envelope: LoadedEnvelope, requested: SecuredParty | undefined): SecuredParty | undefined {
  if (!requested) return undefined;
  const current = securedPartyOf(envelope);
  if (!current) return requested;
  if (canonicalJson(current) === canonicalJson(requested)) return undefined;
  throw conflict("The envelope already names a different secured party; it cannot be changed at vault-in", {
    secured_party: current,
  });
}
