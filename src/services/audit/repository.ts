// Statements on audit_log: the chain's append and head (audit/chain.ts hashes and builds the entry), its reads.

/**
 * Whether a console user has updated this webhook endpoint, as the organization's audit chain records it
 * (`webhook_endpoint.updated` by a `user` actor; webhooks/legacy-webhook.ts).
 */
export async function hasUserUpdatedWebhookEndpoint(db: D1Database, orgId: string, endpointId: string): Promise<boolean> {
  const row = await db
    .prepare(
      `SELECT 1 AS hit FROM audit_log WHERE chain_id = ? AND action = 'webhook_endpoint.updated' AND actor_type = 'user'
       AND json_extract(data, '$.endpoint_id') = ? LIMIT 1`,
    )
    .bind(orgId, endpointId)
    .first<{ hit: number }>();
  return row !== null;
}

/** An audit_log row as D1 returns it (`data` is the JSON text). Inline type imports: appended to this file. */
export type AuditLogRow = import("../../db/row").Row<typeof import("../../db/schema").auditLog>;

// ---- the chain append and head read (audit/chain.ts builds and hashes the entry) ----

/**
 * The INSERT of one hashed audit entry. With `onlyIfPreviousChanged` it is written only if the guarded
 * UPDATE placed just before it in the batch changed a row (`changes()`).
 */
export function auditLogInsert(
  db: D1Database,
  e: {
    id: string; org_id: string; chain_id: string; seq: number; action: string; actor_type: string; actor_id: string | null;
    ip: string | null; user_agent: string | null; data: string; created_at: string; prev_hash: string; hash: string;
  },
  onlyIfPreviousChanged: boolean,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO audit_log (id, org_id, chain_id, seq, action, actor_type, actor_id, ip, user_agent, data, created_at, prev_hash, hash)
       ${onlyIfPreviousChanged ? "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE changes() > 0" : "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"}`,
    )
    .bind(e.id, e.org_id, e.chain_id, e.seq, e.action, e.actor_type, e.actor_id, e.ip, e.user_agent, e.data, e.created_at, e.prev_hash, e.hash);
}

/** The last entry of a chain (seq and hash), or null for an empty chain. */
export function findChainHead(db: D1Database, chainId: string): Promise<{ seq: number; hash: string } | null> {
  return db.prepare("SELECT seq, hash FROM audit_log WHERE chain_id = ? ORDER BY seq DESC LIMIT 1").bind(chainId).first<{ seq: number; hash: string }>();
}

/** The IP and user agent each of these signers completed from, as the envelope's chain recorded them. */
export async function listSignerCompletionOrigins(
  db: D1Database,
  envelopeId: string,
  signerIds: string[],
): Promise<{ actor_id: string; ip: string | null; user_agent: string | null }[]> {
  const { results } = await db
    // on the envelope's own chain (the chain index), never a scan of every organization's audit log
    .prepare(`SELECT actor_id, ip, user_agent FROM audit_log WHERE chain_id = ? AND action = 'signer.completed' AND actor_id IN (${signerIds.map(() => "?").join(",")})`)
    .bind(envelopeId, ...signerIds)
    .all<{ actor_id: string; ip: string | null; user_agent: string | null }>();
  return results;
}

/** A chain's entries in order, as verifyChainRows reads them (for a caller that batches its reads). */
export function chainRowsStatement(db: D1Database, chainId: string): D1PreparedStatement {
  return db
    .prepare(
      `SELECT id, org_id, chain_id, seq, action, actor_type, actor_id, ip, user_agent, data, created_at, prev_hash, hash
       FROM audit_log WHERE chain_id = ? ORDER BY seq ASC`,
    )
    .bind(chainId);
}

/** chainRowsStatement for many chains at once (one JSON array of ids), each chain's rows oldest first. */
export function selectChainRowsOf(db: D1Database, chainIds: string[]): D1PreparedStatement {
  return db
    .prepare(
      `SELECT id, org_id, chain_id, seq, action, actor_type, actor_id, ip, user_agent, data, created_at, prev_hash, hash
       FROM audit_log WHERE chain_id IN (SELECT value FROM json_each(?)) ORDER BY chain_id, seq ASC`,
    )
    .bind(JSON.stringify(chainIds));
}

/**
 * countChainActions for the envelopes of many vault records at once (one JSON array of vault ids), each
 * chain counted up to the `audit_seq` its envelope records in the same statement: `{ id, n }` per envelope.
 * SQL exception: the envelope's length is the bound of its count and the record names the envelope, all
 * read in one statement (the batch of control/state.ts readControlMany).
 */
export function selectChainActionCountsOfRecords(db: D1Database, vaultIds: string[], actions: readonly string[]): D1PreparedStatement {
  return db
    .prepare(
      `SELECT e.id, (SELECT COUNT(*) FROM audit_log a WHERE a.chain_id = e.id AND a.seq <= e.audit_seq AND a.action IN (SELECT value FROM json_each(?2))) AS n
         FROM envelopes e WHERE e.id IN (SELECT r.envelope_id FROM vault_records r WHERE r.id IN (SELECT value FROM json_each(?1)))`,
    )
    .bind(JSON.stringify(vaultIds), JSON.stringify([...actions]));
}

/** How many entries of the chain up to `uptoSeq` have one of `actions` (entries are never rewritten: the count as of that head). */
export async function countChainActions(db: D1Database, input: { chainId: string; uptoSeq: number; actions: readonly string[] }): Promise<number> {
  const row = await db
    .prepare("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND seq <= ? AND action IN (SELECT value FROM json_each(?))")
    .bind(input.chainId, input.uptoSeq, JSON.stringify([...input.actions]))
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** listChainActions's rows of many chains at once (one JSON array of ids), with each row's `chain_id`, each chain's oldest first. */
export function selectChainActionsOf(db: D1Database, input: { chainIds: string[]; actions: readonly string[] }): D1PreparedStatement {
  return db
    .prepare(
      `SELECT chain_id, id, seq, hash, action, actor_type, actor_id, ip, data, created_at FROM audit_log
       WHERE chain_id IN (SELECT value FROM json_each(?)) AND action IN (SELECT value FROM json_each(?)) ORDER BY chain_id, seq`,
    )
    .bind(JSON.stringify(input.chainIds), JSON.stringify([...input.actions]));
}

/** A chain's entries with one of `actions`, oldest first (an organization's control-key history, say). */
export async function listChainActions<Row>(db: D1Database, input: { chainId: string; actions: readonly string[] }): Promise<Row[]> {
  const { results } = await db
    .prepare(
      `SELECT id, seq, hash, action, actor_type, actor_id, ip, data, created_at FROM audit_log
       WHERE chain_id = ? AND action IN (SELECT value FROM json_each(?)) ORDER BY seq`,
    )
    .bind(input.chainId, JSON.stringify([...input.actions]))
    .all<Row>();
  return results;
}

/**
 * One page of a chain for the audit export: entries after `afterSeq`, oldest first, within the
 * optional `[from, to)` window of `created_at` (ISO text compares in time order). Bounded by `limit`,
 * so an export of a long chain never holds more than a page.
 */
export async function chainPage(
  db: D1Database,
  input: { chainId: string; afterSeq: number; from: string | null; to: string | null; limit: number },
): Promise<AuditLogRow[]> {
  const { results } = await db
    .prepare(
      `SELECT id, org_id, chain_id, seq, action, actor_type, actor_id, ip, user_agent, data, created_at, prev_hash, hash
       FROM audit_log WHERE chain_id = ?1 AND seq > ?2 AND (?3 IS NULL OR created_at >= ?3) AND (?4 IS NULL OR created_at < ?4)
       ORDER BY seq LIMIT ?5`,
    )
    .bind(input.chainId, input.afterSeq, input.from, input.to, input.limit)
    .all<AuditLogRow>();
  return results;
}
