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
  return shard
    .prepare(
      "INSERT OR IGNORE INTO webhook_endpoints (id, org_id, url, events, is_active, created_at, updated_at, deleted_at) VALUES (?, ?, '', '[]', 0, ?, ?, ?)",
    )
    .bind(endpoint.id, endpoint.orgId, at, at, at);
}
