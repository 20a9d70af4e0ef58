import type { OrgContext } from "../../lib/context";
import type { GlobalDb } from "../../lib/shards";
import { nowIso } from "../../lib/time";
import { verifyChainRows } from "../audit/verify-chain";
import { getEnvelope, type EnvelopeRow } from "../envelopes/repository";
import { factsFrom, runChecks, summarize, type ComplianceFacts, type VaultFacts } from "../vault/compliance-checks";
import { controlFactsOf, type ChainEntryLike } from "../vault/control-history";
import { actingOrgOf, unsignedControlMoves } from "../evidence/key-history";
import type { VaultRecordRow } from "../vault/repository";
import { directReads, type RecordReader, type RecordReads } from "../vault/record-reads";

// The eight UCC §9-105 checks themselves are pure and shared with the certificates the vault issues:
// src/services/vault/compliance-checks.ts. This verb evaluates them on the envelope as it stands.

/** A control step about to be committed, for the certificate issued with it: the record as it leaves it, and its chain entry. */
export type PendingControlStep = { record: VaultRecordRow; step: { action: string; data: Record<string, unknown> } };

/** Where gatherFacts reads: the envelope's shard (`db`) and the global database (`global`: the parties' names). */
export type FactsSource = { db: D1Database; global: GlobalDb };

/**
 * Gathers the facts for one envelope from the vault record, its audit chain and the control the chain
 * records (vault/control-history.ts). `pending` is a control step not yet on the chain: the certificate
 * committed with it describes the record as the step leaves it. The record and its chain are read on
 * the envelope's shard, the parties' names in the global database (docs/decisions/shards.md 3); given
 * one database only (a caller not yet split), both are read there, as before sharding. `reader`: where
 * the reads come from (vault/record-reads.ts: by default each when asked; a pool's chunk reads its
 * records' together beforehand).
 */
export async function gatherFacts(source: FactsSource | D1Database, envelope: EnvelopeRow, pending?: PendingControlStep, reader?: RecordReader): Promise<ComplianceFacts> {
  const { db, global } = "global" in source ? source : { db: source, global: source as GlobalDb };
  const reads = (reader ?? directReads(db))(global);
  const [read, row] = await Promise.all([reads.chain(envelope.id), reads.vaultFacts(envelope.id)]);
  const chain = { rows: read.rows, verification: await verifyChainRows(read.rows, read.recordedSeq) };
  if (!row) return factsFrom(envelope, null, chain.verification.verified);
  const entries: ChainEntryLike[] = [...chain.rows];
  if (pending) entries.push({ seq: (chain.rows.at(-1)?.seq ?? 0) + 1, action: pending.step.action, data: pending.step.data, actor_id: null, created_at: "" });
  const record = pending?.record ?? row;
  const [controllerName, pledgorName] = pending
    ? await Promise.all([reads.orgName(record.controller_org_id), record.pledgor_org_id ? reads.orgName(record.pledgor_org_id) : null])
    : [row.controller_name, row.pledgor_name];
  // the originator is most often the controller or the pledgor, whose names are already read
  const originatorName =
    row.org_id === record.controller_org_id ? controllerName : row.org_id === record.pledgor_org_id ? pledgorName : await reads.orgName(row.org_id);
  const vault: VaultFacts = {
    vaultId: row.id,
    documentHash: row.document_hash,
    custodianOrgId: row.custodian_org_id,
    copyMarked: row.copy_marked === 1,
    lastIntegrityMatched: row.last_matched === null ? null : row.last_matched === 1,
    ...controlFactsOf(record, entries, { controller: controllerName, pledgor: pledgorName, originator: originatorName }),
    signatures: await controlSignatureFacts(reads, entries, row.id),
  };
  return factsFrom(envelope, vault, chain.verification.verified);
}

/** Check 5's signed-move rule: the acting organizations' key history read, every move checked (evidence/key-history.ts). */
async function controlSignatureFacts(reads: RecordReads, entries: ChainEntryLike[], vaultId: string) {
  const parsed = entries.map((e) => ({ seq: e.seq, action: e.action, created_at: e.created_at || new Date().toISOString(), data: (typeof e.data === "string" ? JSON.parse(e.data) : e.data) as Record<string, any> }));
  const acting = [...new Set(parsed.map(actingOrgOf).filter((o): o is string => o !== null))];
  if (acting.length === 0) return { unsigned: [], afterRecovery: [] };
  return unsignedControlMoves(parsed, await reads.keyHistory(acting), vaultId);
}

export async function evaluateCompliance(ctx: OrgContext, input: { envelopeId: string }) {
  const envelope = await getEnvelope(ctx.db, ctx.orgId, input.envelopeId);
  const checks = runChecks(await gatherFacts(ctx, envelope));
  return {
    envelope_id: envelope.id,
    envelope_name: envelope.name,
    customer_id: envelope.customer_id,
    envelope_status: envelope.status,
    compliance: { ...summarize(checks), evaluated_at: nowIso(), checks },
  };
}
