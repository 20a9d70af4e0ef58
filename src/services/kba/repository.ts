import type { KbaCheckStatus, KbaOutcome } from "../../db/schema/kba";

export type KbaCheckRow = {
  signer_id: string;
  envelope_id: string;
  org_id: string;
  provider: string;
  status: KbaCheckStatus;
  attempts_used: number;
  created_at: string;
  updated_at: string;
};

export type KbaSessionRow = {
  id: string;
  signer_id: string;
  envelope_id: string;
  org_id: string;
  provider: string;
  provider_session_id: string;
  attempt: number;
  status: "open" | "scored" | "expired";
  outcome: "passed" | "failed" | null;
  expires_at: string;
  created_at: string;
  scored_at: string | null;
};

export type KbaResultRow = {
  id: string;
  signer_id: string;
  envelope_id: string;
  org_id: string;
  signer_email: string;
  status: KbaOutcome;
  provider: string;
  provider_session_id: string;
  ip_address: string | null;
  price_cents: number;
  attempts: number;
  occurred_at: string;
};

/** The signer's KBA check, or null when the signer is not challenged (not a KBA envelope, or the sender). */
export function getKbaCheck(db: D1Database, signerId: string): Promise<KbaCheckRow | null> {
  return db.prepare("SELECT * FROM kba_checks WHERE signer_id = ?").bind(signerId).first<KbaCheckRow>();
}

export function openSessionOf(db: D1Database, signerId: string): Promise<KbaSessionRow | null> {
  return db.prepare("SELECT * FROM kba_sessions WHERE signer_id = ? AND status = 'open'").bind(signerId).first<KbaSessionRow>();
}

export function insertKbaCheck(db: D1Database, row: Pick<KbaCheckRow, "signer_id" | "envelope_id" | "org_id" | "provider">, at: string): D1PreparedStatement {
  return db
    .prepare("INSERT INTO kba_checks (signer_id, envelope_id, org_id, provider, status, attempts_used, created_at, updated_at) VALUES (?, ?, ?, ?, 'required', 0, ?, ?)")
    .bind(row.signer_id, row.envelope_id, row.org_id, row.provider, at, at);
}

export async function listKbaResults(db: D1Database, envelopeId: string): Promise<KbaResultRow[]> {
  return (await db.prepare("SELECT * FROM kba_results WHERE envelope_id = ? ORDER BY occurred_at, rowid").bind(envelopeId).all<KbaResultRow>()).results;
}

/** A SQLite constraint failure of one of the KBA tables: a replayed or racing answer lost. */
export function isKbaConstraint(err: unknown): boolean {
  return err instanceof Error && /(UNIQUE|CHECK) constraint failed: (kba_|usage_lines)/.test(err.message);
}

/** The envelope's challenged signers (those with a KBA check). */
export async function challengedSignerIds(db: D1Database, envelopeId: string): Promise<Set<string>> {
  const { results } = await db.prepare("SELECT signer_id FROM kba_checks WHERE envelope_id = ?").bind(envelopeId).all<{ signer_id: string }>();
  return new Set(results.map((r) => r.signer_id));
}
