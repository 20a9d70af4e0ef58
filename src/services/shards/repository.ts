import type { GlobalDb, ShardDb } from "../../lib/shards";

/**
 * An organization's shards (docs/decisions/shards.md 1): every shard it was placed on and every shard
 * holding a vault record it holds a role in or was offered, plus its current shard (an organization
 * created before sharding has no `org_shards` row and lives on shard 1). Ascending.
 */
export async function orgShardSet(global: GlobalDb, orgId: string): Promise<number[]> {
  const { results } = await global
    .prepare("SELECT shard_id FROM org_shards WHERE org_id = ?1 UNION SELECT current_shard_id FROM organizations WHERE id = ?1 ORDER BY 1")
    .bind(orgId)
    .all<{ shard_id: number }>();
  return results.length > 0 ? results.map((r) => r.shard_id) : [1];
}

/** The organization's current shard (where its new envelopes go); 1 for an unknown organization. */
export async function currentShardOf(global: GlobalDb, orgId: string): Promise<number> {
  const row = await global.prepare("SELECT current_shard_id FROM organizations WHERE id = ?").bind(orgId).first<{ current_shard_id: number }>();
  return row?.current_shard_id ?? 1;
}

/** Adds a shard to the organization's set (idempotent: the first reason and time stay). */
export function orgShardInsert(global: GlobalDb, input: { orgId: string; shard: number; reason: "placed" | "vault"; at: string }): D1PreparedStatement {
  return global
    .prepare("INSERT OR IGNORE INTO org_shards (org_id, shard_id, reason, first_at) VALUES (?, ?, ?, ?)")
    .bind(input.orgId, input.shard, input.reason, input.at);
}

/**
 * The organization's anchor row on a shard: the target of the shard rows' foreign keys to
 * `organizations` (docs/decisions/shards.md, "FK anchors"). Never read; on a shard that is also the
 * global database (a pre-sharding deployment's shard 1) the real row is already there and stays.
 */
export function orgAnchorInsert(shard: ShardDb, orgId: string, at: string): D1PreparedStatement {
  return shard.prepare("INSERT OR IGNORE INTO organizations (id, name, created_at, updated_at) VALUES (?, '', ?, ?)").bind(orgId, at, at);
}

/**
 * A webhook endpoint's anchor row on a shard, for `webhook_deliveries.endpoint_id`: deleted, inactive,
 * no URL and no events, so nothing on the shard can ever treat it as an endpoint (the live endpoint is
 * the global row). Written in the batch that first inserts a delivery to the endpoint on this shard.
 */
export function endpointAnchorInsert(shard: ShardDb, endpoint: { id: string; orgId: string }, at: string): D1PreparedStatement {
  // `WHERE NOT EXISTS`, not only OR IGNORE: the 25-endpoint trigger (migration 0003) fires before the
  // conflict check and its RAISE(ABORT) is not ignored, so on a shard that is also the global database
  // an organization with 25 live endpoints would abort the whole batch
  return shard
    .prepare(
      `INSERT OR IGNORE INTO webhook_endpoints (id, org_id, url, events, is_active, created_at, updated_at, deleted_at)
       SELECT ?1, ?2, '', '[]', 0, ?3, ?3, ?3 WHERE NOT EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ?1)`,
    )
    .bind(endpoint.id, endpoint.orgId, at);
}

/** A shard's registry state: open (takes new organizations and moves) or closed. */
export type ShardState = "open" | "closed";

export async function registeredShards(global: GlobalDb): Promise<Map<number, ShardState>> {
  const { results } = await global.prepare("SELECT id, state FROM shards ORDER BY id").all<{ id: number; state: ShardState }>();
  return new Map(results.map((r) => [r.id, r.state]));
}

/** Organizations per current shard (global). */
export async function organizationsPerShard(global: GlobalDb): Promise<Map<number, number>> {
  const { results } = await global
    .prepare("SELECT current_shard_id AS shard, COUNT(*) AS n FROM organizations GROUP BY current_shard_id")
    .all<{ shard: number; n: number }>();
  return new Map(results.map((r) => [r.shard, r.n]));
}

/**
 * How full a shard is: its highest envelope rowid. O(1) (the rowid b-tree's last page), and a fair
 * count because envelopes are never deleted. On a shard that is also the global database (a
 * pre-sharding deployment's shard 1) it counts that database's envelopes, which are shard 1's.
 */
export async function envelopesOn(db: ShardDb): Promise<number> {
  const row = await db.prepare("SELECT MAX(rowid) AS n FROM envelopes").first<{ n: number | null }>();
  return row?.n ?? 0;
}

/** Opens or closes a shard, registering it on first use. */
export function shardStateUpsert(global: GlobalDb, input: { shard: number; state: ShardState; at: string }): D1PreparedStatement {
  return global
    .prepare(
      `INSERT INTO shards (id, state, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
       ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
    )
    .bind(input.shard, input.state, input.at);
}

export function findShardState(global: GlobalDb, shard: number): Promise<{ state: ShardState } | null> {
  return global.prepare("SELECT state FROM shards WHERE id = ?").bind(shard).first<{ state: ShardState }>();
}
