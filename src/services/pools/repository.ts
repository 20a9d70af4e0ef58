import type { Row } from "../../db/row";
import type { PoolStatus, vaultPools } from "../../db/schema";

// Statements on vault_pools (docs/control.md "Pools"). A pool's holds are vault_transfers rows, whose
// statements are control's (../control/repository.ts).

export type PoolRow = Row<typeof vaultPools>;

export function getPool(db: D1Database, poolId: string): Promise<PoolRow | null> {
  return db.prepare("SELECT * FROM vault_pools WHERE id = ?").bind(poolId).first<PoolRow>();
}

export function poolInsert(db: D1Database, row: PoolRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO vault_pools (id, kind, from_org_id, to_org_id, status, reference, count, manifest_sha256, shards, offer_signature, answer_signature, created_at, expires_at, settled_at, completed_at, released_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      row.id,
      row.kind,
      row.from_org_id,
      row.to_org_id,
      row.status,
      row.reference,
      row.count,
      row.manifest_sha256,
      row.shards,
      row.offer_signature,
      row.answer_signature,
      row.created_at,
      row.expires_at,
      row.settled_at,
      row.completed_at,
      row.released_at,
    );
}

/** Moves a pool from `from` to `to` (only if it is still `from`, and for an answer still before its expiry); 0 changes: it was not. */
export function poolSettle(
  db: D1Database,
  input: { poolId: string; from: PoolStatus; to: PoolStatus; at: string; answerSignature?: string | null; unexpired?: boolean },
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE vault_pools SET status = ?1, settled_at = CASE WHEN ?1 = 'pending' THEN NULL ELSE ?2 END, answer_signature = COALESCE(?3, answer_signature)
        WHERE id = ?4 AND status = ?5 AND (?6 = 0 OR expires_at > ?2)`,
    )
    .bind(input.to, input.at, input.answerSignature ?? null, input.poolId, input.from, input.unexpired ? 1 : 0);
}

/** Records that every hold of a settled (not accepted) pool was released. */
export function poolReleased(db: D1Database, poolId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE vault_pools SET released_at = ? WHERE id = ? AND released_at IS NULL").bind(at, poolId);
}

/** Records that every record of an accepted pool moved; 0 changes: it was already recorded. */
export function poolCompleted(db: D1Database, poolId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE vault_pools SET completed_at = ? WHERE id = ? AND status = 'accepted' AND completed_at IS NULL").bind(at, poolId);
}

/**
 * The condition (outboxInsert's `onlyIf`) under which a `vault.pool_accepted` event for `orgId` goes in
 * the batch of poolCompleted(`at`): that update took effect (the pool is completed at this run's `at`),
 * and no such event of the pool is recorded for the organization yet (two runs completing in the same
 * millisecond; looked for among the organization's events since the pool was accepted, `settledAt`).
 * So of overlapping runs only the one whose update changed the row sends the events.
 */
export function poolCompletedHere(input: { poolId: string; at: string; orgId: string; settledAt: string }): { sql: string; params: unknown[] } {
  return {
    sql: `EXISTS (SELECT 1 FROM vault_pools WHERE id = ? AND completed_at = ?)
      AND NOT EXISTS (SELECT 1 FROM events WHERE org_id = ? AND created_at >= ? AND type = 'vault.pool_accepted' AND json_extract(data, '$.pool_id') = ?)`,
    params: [input.poolId, input.at, input.orgId, input.settledAt, input.poolId],
  };
}

/**
 * The pools of this shard the minute job looks after, at most `limit` of each kind: pending past expiry,
 * settled without an acceptance but not yet released, preparing since before `staleBefore` (an offer
 * that stopped halfway), accepted but not yet completed.
 */
export async function listPoolsToTend(db: D1Database, input: { now: string; staleBefore: string; limit: number }): Promise<PoolRow[]> {
  const { results } = await db
    .prepare(
      `SELECT * FROM (SELECT * FROM vault_pools WHERE status = 'pending' AND expires_at <= ?1 LIMIT ?3)
       UNION ALL SELECT * FROM (SELECT * FROM vault_pools WHERE status IN ('rejected', 'cancelled', 'expired') AND released_at IS NULL LIMIT ?3)
       UNION ALL SELECT * FROM (SELECT * FROM vault_pools WHERE status = 'preparing' AND created_at < ?2 LIMIT ?3)
       UNION ALL SELECT * FROM (SELECT * FROM vault_pools WHERE status = 'accepted' AND completed_at IS NULL LIMIT ?3)`,
    )
    .bind(input.now, input.staleBefore, input.limit)
    .all<PoolRow>();
  return results;
}

/** The shard numbers holding the pool's records. */
export const poolShards = (pool: Pick<PoolRow, "shards">): number[] => JSON.parse(pool.shards) as number[];
