import type { Row } from "../../db/row";
import type { KbaCheckStatus, kbaChecks, kbaResults, kbaSessions } from "../../db/schema/kba";
import type { ShardDb } from "../../lib/shards";

export type KbaCheckRow = Row<typeof kbaChecks>;
export type KbaSessionRow = Row<typeof kbaSessions>;
export type KbaResultRow = Row<typeof kbaResults>;

/** The signer's KBA check, or null when the signer is not challenged (not a KBA envelope, or the sender). */
export function getKbaCheck(db: ShardDb, signerId: string): Promise<KbaCheckRow | null> {
  return db.prepare("SELECT * FROM kba_checks WHERE signer_id = ?").bind(signerId).first<KbaCheckRow>();
}

export function openSessionOf(db: ShardDb, signerId: string): Promise<KbaSessionRow | null> {
  return db.prepare("SELECT * FROM kba_sessions WHERE signer_id = ? AND status = 'open'").bind(signerId).first<KbaSessionRow>();
}

export function insertKbaCheck(db: ShardDb, row: Pick<KbaCheckRow, "signer_id" | "envelope_id" | "org_id" | "provider">, at: string): D1PreparedStatement {
  return db
    .prepare("INSERT INTO kba_checks (signer_id, envelope_id, org_id, provider, status, attempts_used, created_at, updated_at) VALUES (?, ?, ?, ?, 'required', 0, ?, ?)")
    .bind(row.signer_id, row.envelope_id, row.org_id, row.provider, at, at);
}

export async function listKbaResults(db: D1Database, envelopeId: string): Promise<KbaResultRow[]> {
  return (await db.prepare("SELECT * FROM kba_results WHERE envelope_id = ? ORDER BY occurred_at, rowid").bind(envelopeId).all<KbaResultRow>()).results;
}

/** listKbaResults for many envelopes at once, each envelope's in the same order. */
export function selectKbaResultsOf(db: D1Database, envelopeIds: string[]): D1PreparedStatement {
  return db.prepare("SELECT * FROM kba_results WHERE envelope_id IN (SELECT value FROM json_each(?)) ORDER BY envelope_id, occurred_at, rowid").bind(JSON.stringify(envelopeIds));
}

/** A SQLite constraint failure of one of the KBA tables: a replayed or racing answer lost. */
export function isKbaConstraint(err: unknown): boolean {
  return err instanceof Error && /(UNIQUE|CHECK) constraint failed: (kba_|usage_lines)/.test(err.message);
}

/** The envelope's challenged signers (those with a KBA check). */
export async function challengedSignerIds(db: ShardDb, envelopeId: string): Promise<Set<string>> {
  const { results } = await db.prepare("SELECT signer_id FROM kba_checks WHERE envelope_id = ?").bind(envelopeId).all<{ signer_id: string }>();
  return new Set(results.map((r) => r.signer_id));
}

/** The signer's question set `sessionId`, or null (another signer's session is as unknown as a made-up id). */
export function getKbaSession(db: ShardDb, sessionId: string, signerId: string): Promise<KbaSessionRow | null> {
  return db.prepare("SELECT * FROM kba_sessions WHERE id = ? AND signer_id = ?").bind(sessionId, signerId).first<KbaSessionRow>();
}

/** How many question sets the signer started after `since`, and when the oldest of them started. */
export function countSessionsSince(db: ShardDb, signerId: string, since: string): Promise<{ sets: number; oldest: string | null } | null> {
  return db
    .prepare("SELECT count(*) AS sets, min(created_at) AS oldest FROM kba_sessions WHERE signer_id = ? AND created_at > ?")
    .bind(signerId, since)
    .first<{ sets: number; oldest: string | null }>();
}

/**
 * Opens a question set, inserted only while the check is at the attempt read (`attemptsUsed`) and the
 * signer's sets started after `since` are fewer than `cap` (re-checked in SQL: a racing start loses
 * here, inserting nothing). Two racing first loads: the partial unique index on the open set throws.
 */
export function insertKbaSession(
  db: ShardDb,
  session: Pick<KbaSessionRow, "id" | "signer_id" | "envelope_id" | "org_id" | "provider" | "provider_session_id" | "attempt" | "expires_at" | "created_at">,
  guard: { attemptsUsed: number; since: string; cap: number },
): Promise<D1Result> {
  return db
    .prepare(
      `INSERT INTO kba_sessions (id, signer_id, envelope_id, org_id, provider, provider_session_id, attempt, status, expires_at, created_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?
       WHERE EXISTS (SELECT 1 FROM kba_checks WHERE signer_id = ? AND status = 'required' AND attempts_used = ?)
         AND (SELECT count(*) FROM kba_sessions WHERE signer_id = ? AND created_at > ?) < ?`,
    )
    .bind(
      session.id,
      session.signer_id,
      session.envelope_id,
      session.org_id,
      session.provider,
      session.provider_session_id,
      session.attempt,
      session.expires_at,
      session.created_at,
      session.signer_id,
      guard.attemptsUsed,
      session.signer_id,
      guard.since,
      guard.cap,
    )
    .run();
}

/** The guard of an `unavailable` outcome: a check that is no longer `required` makes status NULL and fails the batch whole. */
export function kbaCheckUnavailable(db: ShardDb, signerId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE kba_checks SET status = CASE WHEN status = 'required' THEN 'unavailable' END, updated_at = ? WHERE signer_id = ?").bind(at, signerId);
}

/**
 * Settles a question set (`scored` or `expired`) with its outcome. The guard of a settle batch: the set
 * still `open` and the check still `required` at the attempt before this set's, else the status turns
 * NULL (which NOT NULL refuses) and the batch fails whole.
 */
export function kbaSessionSettle(
  db: ShardDb,
  session: Pick<KbaSessionRow, "id" | "signer_id" | "attempt">,
  settle: { settledAs: "scored" | "expired"; outcome: string; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE kba_sessions SET status = CASE WHEN status = 'open' AND EXISTS (SELECT 1 FROM kba_checks WHERE signer_id = ? AND status = 'required' AND attempts_used = ?) THEN ? END,
         outcome = ?, scored_at = ? WHERE id = ?`,
    )
    .bind(session.signer_id, session.attempt - 1, settle.settledAs, settle.outcome, settle.at, session.id);
}

/** Moves the signer's check to `status` with `attemptsUsed` attempts used. */
export function kbaCheckMove(db: ShardDb, signerId: string, move: { status: KbaCheckStatus; attemptsUsed: number; at: string }): D1PreparedStatement {
  return db.prepare("UPDATE kba_checks SET status = ?, attempts_used = ?, updated_at = ? WHERE signer_id = ?").bind(move.status, move.attemptsUsed, move.at, signerId);
}

/** The INSERT of a signer's final KBA result (unique per signer: a second one fails the batch it is in). */
export function kbaResultInsert(db: ShardDb, result: KbaResultRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO kba_results (id, signer_id, envelope_id, org_id, signer_email, status, provider, provider_session_id, ip_address, price_cents, attempts, occurred_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      result.id,
      result.signer_id,
      result.envelope_id,
      result.org_id,
      result.signer_email,
      result.status,
      result.provider,
      result.provider_session_id,
      result.ip_address,
      result.price_cents,
      result.attempts,
      result.occurred_at,
    );
}

// ---- appended by helper C: a corrected signer's KBA starts over (services/corrections/correct-signer.ts) ----

/**
 * A corrected signer's identity check starts over: the check `required` with no attempt used, any open
 * question set settled (`expired`, outcome `superseded`), the scored ones retired as `expired` with their
 * outcome kept (the new sets number their attempts from 1 again, and a scored attempt is unique), and
 * the final result the old identity reached removed (the audit chain keeps its `envelope.kba_verified`
 * entry). The sets keep their start times: the rolling-day cap still counts them. Nothing for a
 * signer without a check.
 */
export function kbaRestartStatements(db: ShardDb, signerId: string, at: string): D1PreparedStatement[] {
  return [
    db.prepare("UPDATE kba_sessions SET status = 'expired', outcome = 'superseded', scored_at = ? WHERE signer_id = ? AND status = 'open'").bind(at, signerId),
    db.prepare("UPDATE kba_sessions SET status = 'expired' WHERE signer_id = ? AND status = 'scored'").bind(signerId),
    db.prepare("DELETE FROM kba_results WHERE signer_id = ?").bind(signerId),
    db.prepare("UPDATE kba_checks SET status = 'required', attempts_used = 0, updated_at = ? WHERE signer_id = ?").bind(at, signerId),
  ];
}
