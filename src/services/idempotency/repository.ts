import type { ShardDb } from "../../lib/shards";

/** Marks the record a keyed create commits (in the create's batch: a second commit under the same ref fails on the primary key). */
export function idempotentCreateInsert(db: ShardDb, row: { orgId: string; ref: string; recordId: string; at: string }): D1PreparedStatement {
  return db.prepare("INSERT INTO idempotent_creates (org_id, ref, record_id, created_at) VALUES (?, ?, ?, ?)").bind(row.orgId, row.ref, row.recordId, row.at);
}

export function findIdempotentCreate(db: ShardDb, orgId: string, ref: string): Promise<{ record_id: string; created_at: string } | null> {
  return db.prepare("SELECT record_id, created_at FROM idempotent_creates WHERE org_id = ? AND ref = ?").bind(orgId, ref).first();
}

/** Forgets a mark older than the key's window, so the key may name a new request. */
export function idempotentCreateDelete(db: ShardDb, orgId: string, ref: string, createdAt: string): Promise<D1Result> {
  return db.prepare("DELETE FROM idempotent_creates WHERE org_id = ? AND ref = ? AND created_at = ?").bind(orgId, ref, createdAt).run();
}

/** Deletes marks older than `cutoff`, oldest first, `limit` at a time. */
export function pruneIdempotentCreates(db: ShardDb, input: { cutoff: string; limit: number }): Promise<D1Result> {
  return db
    .prepare("DELETE FROM idempotent_creates WHERE rowid IN (SELECT rowid FROM idempotent_creates WHERE created_at < ? ORDER BY created_at LIMIT ?)")
    .bind(input.cutoff, input.limit)
    .run();
}
