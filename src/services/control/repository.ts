import type { GlobalDb } from "../../lib/shards";
import type { Row } from "../../db/row";
import type { controlKeys, TransferStatus, vaultTransfers } from "../../db/schema";

// Statements on vault_transfers and control_keys (docs/control.md). The control columns of vault_records
// are the vault's (../vault/repository.ts).

export type TransferRow = Row<typeof vaultTransfers>;
export type ControlKeyRow = Row<typeof controlKeys>;

// ---- vault_transfers ----

export function getTransfer(db: D1Database, transferId: string): Promise<TransferRow | null> {
  return db.prepare("SELECT * FROM vault_transfers WHERE id = ?").bind(transferId).first<TransferRow>();
}

/** The record's pending transfer, if any (at most one: vault_transfers_pending_uq). */
export function findPendingTransfer(db: D1Database, vaultId: string): Promise<TransferRow | null> {
  return db.prepare("SELECT * FROM vault_transfers WHERE vault_id = ? AND status = 'pending'").bind(vaultId).first<TransferRow>();
}

/** A new pending transfer; a second pending one for the record fails the batch on vault_transfers_pending_uq. */
export function transferInsert(db: D1Database, row: TransferRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO vault_transfers (id, vault_id, envelope_id, kind, from_org_id, to_org_id, status, reference, created_at, expires_at, settled_at, pool_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(row.id, row.vault_id, row.envelope_id, row.kind, row.from_org_id, row.to_org_id, row.status, row.reference, row.created_at, row.expires_at, row.settled_at, row.pool_id ?? null);
}

/** Settles a pending transfer (accepted, rejected, cancelled, expired); one that is no longer pending is left alone. */
export function transferSettle(db: D1Database, transferId: string, status: Exclude<TransferStatus, "pending">, at: string): D1PreparedStatement {
  return db.prepare("UPDATE vault_transfers SET status = ?, settled_at = ? WHERE id = ? AND status = 'pending'").bind(status, at, transferId);
}

export function isPendingTransferConflict(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed: vault_transfers\.vault_id/.test(err.message);
}

/** The caller's transfers, newest first: offered to it (`incoming`) or by it (`outgoing`), optionally of one status. */
export async function listTransfers(
  db: D1Database,
  input: { orgId: string; direction: "incoming" | "outgoing"; status: TransferStatus | null; limit: number; offset: number },
): Promise<{ rows: TransferRow[]; total: number }> {
  const column = input.direction === "incoming" ? "to_org_id" : "from_org_id";
  // a pool's holds are answered as the pool (GET /partner/vault/pools/:pool_id), not listed one by one
  const where = `${column} = ?1 AND (?2 IS NULL OR status = ?2) AND pool_id IS NULL`;
  const [rows, count] = await db.batch<unknown>([
    db.prepare(`SELECT * FROM vault_transfers WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4`).bind(input.orgId, input.status, input.limit, input.offset),
    db.prepare(`SELECT COUNT(*) AS total FROM vault_transfers WHERE ${where}`).bind(input.orgId, input.status),
  ]);
  return { rows: rows!.results as TransferRow[], total: (count!.results[0] as { total: number } | undefined)?.total ?? 0 };
}

/** Pending single transfers past their `expires_at`, oldest first (the expiry job's batch; a pool's holds expire with the pool). */
export async function listLapsedTransfers(db: D1Database, now: string, limit: number): Promise<TransferRow[]> {
  const { results } = await db
    .prepare("SELECT * FROM vault_transfers WHERE status = 'pending' AND expires_at <= ? AND pool_id IS NULL ORDER BY expires_at LIMIT ?")
    .bind(now, limit)
    .all<TransferRow>();
  return results;
}

// ---- a pool's holds (docs/control.md "Pools"): pending vault_transfers rows naming the pool ----

/** What the offer of a pool reads of each record it names: its control and whether a transfer is pending. */
export type PoolCandidate = { id: string; envelope_id: string; document_hash: string; controller_org_id: string; pledgor_org_id: string | null; control_status: string; pending_id: string | null; pending_pool_id: string | null };

/**
 * The records among `vaultIds` (one JSON array) as a pool offer checks them.
 * SQL exception: one read of vault_records with the pending vault_transfers row of each, so the offer checks
 * up to 1,000 records per statement (docs/decisions/d1-statement-budget.md).
 */
export async function readPoolCandidates(db: D1Database, vaultIds: string[]): Promise<PoolCandidate[]> {
  const { results } = await db
    .prepare(
      `SELECT r.id, r.envelope_id, r.document_hash, r.controller_org_id, r.pledgor_org_id, r.control_status, t.id AS pending_id, t.pool_id AS pending_pool_id
         FROM vault_records r LEFT JOIN vault_transfers t ON t.vault_id = r.id AND t.status = 'pending'
        WHERE r.id IN (SELECT value FROM json_each(?))`,
    )
    .bind(JSON.stringify(vaultIds))
    .all<PoolCandidate>();
  return results;
}

/**
 * Holds the records of `holds` (a JSON array of `{ id, vault_id }`, the hold's own id and its record) for a
 * pool: one pending transfer each, only where the record is still the offering organization's, active
 * (and, for a pledge, not pledged). A record with a transfer pending meanwhile fails the whole statement on
 * vault_transfers_pending_uq (isPendingTransferConflict); a record that moved is skipped, so the caller
 * compares `changes` with the number asked.
 * SQL exception: the hold is written from the record's row in one statement, so the check and the hold
 * cannot be separated by another request's commit.
 */
export function poolHoldInsert(
  db: D1Database,
  input: { poolId: string; kind: "assignment" | "pledge"; fromOrgId: string; toOrgId: string; reference: string | null; at: string; expiresAt: string; holds: { id: string; vault_id: string }[] },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO vault_transfers (id, vault_id, envelope_id, kind, from_org_id, to_org_id, status, reference, created_at, expires_at, settled_at, pool_id)
       SELECT json_extract(h.value, '$.id'), r.id, r.envelope_id, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, NULL, ?1
         FROM json_each(?8) h JOIN vault_records r ON r.id = json_extract(h.value, '$.vault_id')
        WHERE r.controller_org_id = ?3 AND r.control_status = 'active' AND (?2 = 'assignment' OR r.pledgor_org_id IS NULL)`,
    )
    .bind(input.poolId, input.kind, input.fromOrgId, input.toOrgId, input.reference, input.at, input.expiresAt, JSON.stringify(input.holds));
}

/** Releases a pool's holds on one shard still pending, as `status` (the pool was rejected, cancelled, expired or never completed its offer). */
export function poolHoldsRelease(db: D1Database, poolId: string, status: "rejected" | "cancelled" | "expired", at: string): D1PreparedStatement {
  return db.prepare("UPDATE vault_transfers SET status = ?, settled_at = ? WHERE pool_id = ? AND status = 'pending'").bind(status, at, poolId);
}

/** Up to `limit` of a pool's holds on one shard still pending, by record id (the acceptance's next chunk). */
export async function listPendingPoolHolds(db: D1Database, poolId: string, limit: number): Promise<TransferRow[]> {
  const { results } = await db.prepare("SELECT * FROM vault_transfers WHERE pool_id = ? AND status = 'pending' ORDER BY vault_id LIMIT ?").bind(poolId, limit).all<TransferRow>();
  return results;
}

/** How many of a pool's holds on one shard are in each status. */
export async function countPoolHolds(db: D1Database, poolId: string): Promise<Record<string, number>> {
  const { results } = await db.prepare("SELECT status, COUNT(*) AS n FROM vault_transfers WHERE pool_id = ? GROUP BY status").bind(poolId).all<{ status: string; n: number }>();
  return Object.fromEntries(results.map((r) => [r.status, r.n]));
}

/**
 * A page of a pool's manifest on one shard: `{ vault_id, document_hash }` of its holds, by vault_id after `after`.
 * SQL exception: the hold names the record, the record has the hash.
 */
export async function poolManifestPage(db: D1Database, poolId: string, after: string, limit: number): Promise<{ vault_id: string; document_hash: string }[]> {
  const { results } = await db
    .prepare(
      `SELECT t.vault_id, r.document_hash FROM vault_transfers t JOIN vault_records r ON r.id = t.vault_id
        WHERE t.pool_id = ? AND t.vault_id > ? ORDER BY t.vault_id LIMIT ?`,
    )
    .bind(poolId, after, limit)
    .all<{ vault_id: string; document_hash: string }>();
  return results;
}

// ---- control_keys ----

export async function listControlKeys(db: GlobalDb, orgId: string): Promise<ControlKeyRow[]> {
  const { results } = await db.prepare("SELECT * FROM control_keys WHERE org_id = ? ORDER BY created_at, kid").bind(orgId).all<ControlKeyRow>();
  return results;
}

export function controlKeysDeleteAll(db: GlobalDb, orgId: string): D1PreparedStatement {
  return db.prepare("DELETE FROM control_keys WHERE org_id = ?").bind(orgId);
}

/** The pending transfers of the records among `vaultIds` (one JSON array), for a page of the book. */
export async function listPendingTransfersOf(db: D1Database, vaultIds: string[]): Promise<TransferRow[]> {
  if (vaultIds.length === 0) return [];
  const { results } = await selectPendingTransfersOf(db, vaultIds).all<TransferRow>();
  return results;
}

/** listPendingTransfersOf's statement, for a batch (readControlMany). */
export function selectPendingTransfersOf(db: D1Database, vaultIds: string[]): D1PreparedStatement {
  return db.prepare("SELECT * FROM vault_transfers WHERE status = 'pending' AND vault_id IN (SELECT value FROM json_each(?))").bind(JSON.stringify(vaultIds));
}

/**
 * Adds a control key only if the organization's keys are still as the caller verified them (one
 * statement, so it holds against a concurrent add or delete): `signedBy` null, the first key, added
 * unsigned only while the organization has none; otherwise the key that signed the addition must still
 * be registered. An existing kid is left alone. 0 changes: the guard or the kid refused it.
 */
export function controlKeyInsertGuarded(db: GlobalDb, row: ControlKeyRow, signedBy: string | null): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO control_keys (org_id, kid, alg, jwk, created_at)
       SELECT ?1, ?2, ?3, ?4, ?5
       WHERE CASE WHEN ?6 IS NULL THEN NOT EXISTS (SELECT 1 FROM control_keys WHERE org_id = ?1)
                  ELSE EXISTS (SELECT 1 FROM control_keys WHERE org_id = ?1 AND kid = ?6) END
       ON CONFLICT (org_id, kid) DO NOTHING`,
    )
    .bind(row.org_id, row.kid, row.alg, row.jwk, row.created_at, signedBy);
}

/** Deletes a control key only while the key that signed the deletion (possibly the same one) is registered. */
export function controlKeyDeleteGuarded(db: GlobalDb, orgId: string, kid: string, signedBy: string): D1PreparedStatement {
  return db
    .prepare("DELETE FROM control_keys WHERE org_id = ?1 AND kid = ?2 AND EXISTS (SELECT 1 FROM control_keys WHERE org_id = ?1 AND kid = ?3)")
    .bind(orgId, kid, signedBy);
}

// ---- control_jtis (docs/control.md: a key change's signature is good once) ----

export async function isControlJtiUsed(db: GlobalDb, orgId: string, jti: string): Promise<boolean> {
  return (await db.prepare("SELECT 1 AS hit FROM control_jtis WHERE org_id = ? AND jti = ?").bind(orgId, jti).first<{ hit: number }>()) !== null;
}

/**
 * Spends a key change's `jti`, in the batch of the change and only if the change happened: `done` is a
 * SQL condition true once it did (the key added by this request is there; the key deleted is gone), so
 * a refused change spends nothing. A `jti` spent meanwhile by a concurrent request fails the whole batch
 * on the primary key (isControlJtiConflict).
 */
export function controlJtiInsert(db: GlobalDb, input: { orgId: string; jti: string; at: string }, done: { sql: string; params: unknown[] }): D1PreparedStatement {
  return db
    .prepare(`INSERT INTO control_jtis (org_id, jti, used_at) SELECT ?, ?, ? WHERE ${done.sql}`)
    .bind(input.orgId, input.jti, input.at, ...done.params);
}

export function isControlJtiConflict(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed: control_jtis\./.test(err.message);
}

/** Deletes spent jtis older than `cutoff` (their signatures' `iat` window long closed), oldest first, at most `limit`. */
export function pruneControlJtis(db: GlobalDb, input: { cutoff: string; limit: number }): Promise<D1Result> {
  return db
    .prepare("DELETE FROM control_jtis WHERE rowid IN (SELECT rowid FROM control_jtis WHERE used_at < ? ORDER BY used_at LIMIT ?)")
    .bind(input.cutoff, input.limit)
    .run();
}
