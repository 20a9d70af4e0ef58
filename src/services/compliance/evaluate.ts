import type { OrgContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import { verifyChain } from "../audit/verify-chain";
import { getEnvelope, type EnvelopeRow } from "../envelopes/repository";
import { factsFrom, runChecks, summarize, type ComplianceFacts, type VaultFacts } from "../vault/compliance-checks";
import { findVaultFacts } from "../vault/repository";

// The eight UCC §9-105 checks themselves are pure and shared with the certificates the vault issues:
// src/services/vault/compliance-checks.ts. This verb evaluates them on the envelope as it stands.

/** Gathers the facts for one envelope from the vault records and the audit chain. */
export async function gatherFacts(db: D1Database, envelope: EnvelopeRow): Promise<ComplianceFacts> {
  const [chain, vault] = await Promise.all([verifyChain(db, envelope.id), readVaultFacts(db, envelope.id)]);
  return factsFrom(envelope, vault, chain.verified);
}

async function readVaultFacts(db: D1Database, envelopeId: string): Promise<VaultFacts | null> {
  const row = await findVaultFacts(db, envelopeId);
  if (!row) return null;
  return {
    vaultId: row.id,
    documentHash: row.document_hash,
    custodianOrgId: row.custodian_org_id,
    copyMarked: row.copy_marked === 1,
    lastIntegrityMatched: row.last_matched === null ? null : row.last_matched === 1,
  };
}

export async function evaluateCompliance(ctx: OrgContext, input: { envelopeId: string }) {
  const envelope = await getEnvelope(ctx.db, ctx.orgId, input.envelopeId);
  const checks = runChecks(await gatherFacts(ctx.db, envelope));
  return {
    envelope_id: envelope.id,
    envelope_name: envelope.name,
    customer_id: envelope.customer_id,
    envelope_status: envelope.status,
    compliance: { ...summarize(checks), evaluated_at: nowIso(), checks },
  };
}
