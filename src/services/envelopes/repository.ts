import type { DocumentSource, EnvelopeStatus, SecuredParty } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { GENESIS_HASH, type ChainHead } from "../audit/chain";

/** An envelope row as D1 returns it, plus the head of its audit chain read in the same statement. */
export type EnvelopeRow = {
  id: string;
  org_id: string;
  customer_id: string;
  name: string;
  status: EnvelopeStatus;
  document_source: DocumentSource;
  external_id: string | null;
  template_id: string | null;
  metadata: string;
  prefilled_data: string | null;
  secured_party: string | null;
  kba_required: number;
  provider_instance: string;
  expires_in_days: number;
  expires_at: string | null;
  signed_at: string | null;
  voided_reason: string | null;
  vaulted_at: string | null;
  certificate_issued_at: string | null;
  created_by_key_id: string | null;
  audit_seq: number;
  created_at: string;
  updated_at: string;
};

export type LoadedEnvelope = EnvelopeRow & { head: ChainHead };

/**
 * One statement reads the envelope and its chain head together, so a transition built from them
 * sees a consistent pair. Anything outside the caller's organization is simply not found.
 */
export async function findEnvelope(db: D1Database, orgId: string, envelopeId: string): Promise<LoadedEnvelope | null> {
  return loadedEnvelopeOf(await selectLoadedEnvelope(db, orgId, envelopeId).first<LoadedEnvelopeRow>());
}

/** A row of selectLoadedEnvelope, as D1 returns it (in a batch too). */
export type LoadedEnvelopeRow = EnvelopeRow & { head_hash: string | null };

/** findEnvelope's statement, for a caller that reads the envelope back in the batch that wrote it. */
/** An envelope row with its audit chain head's hash (`head_hash`), from `envelopes e`: loadedEnvelopeOf reads it. */
export const LOADED_ENVELOPE_COLUMNS = "e.*, (SELECT hash FROM audit_log a WHERE a.chain_id = e.id AND a.seq = e.audit_seq) AS head_hash";

export function selectLoadedEnvelope(db: D1Database, orgId: string, envelopeId: string): D1PreparedStatement {
  return db.prepare(`SELECT ${LOADED_ENVELOPE_COLUMNS} FROM envelopes e WHERE e.id = ? AND e.org_id = ?`).bind(envelopeId, orgId);
}

export function loadedEnvelopeOf(row: LoadedEnvelopeRow | null | undefined): LoadedEnvelope | null {
  if (!row) return null;
  const { head_hash, ...envelope } = row;
  return { ...envelope, head: { seq: envelope.audit_seq, hash: head_hash ?? GENESIS_HASH } };
}

export async function getEnvelope(db: D1Database, orgId: string, envelopeId: string): Promise<LoadedEnvelope> {
  const envelope = await findEnvelope(db, orgId, envelopeId);
  if (!envelope) throw notFound("Envelope");
  return envelope;
}

export function securedPartyOf(row: EnvelopeRow): SecuredParty | null {
  return row.secured_party ? (JSON.parse(row.secured_party) as SecuredParty) : null;
}

export function metadataOf(row: EnvelopeRow): Record<string, unknown> {
  return JSON.parse(row.metadata) as Record<string, unknown>;
}
