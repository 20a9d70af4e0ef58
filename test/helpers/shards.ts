import { env } from "cloudflare:test";
import { shardOf } from "../../src/lib/shards";

/**
 * The databases as a test reads them (docs/decisions/shards.md): `globalDb` holds organizations,
 * credentials, templates, endpoints, disclosures and control keys; everything per envelope is on the
 * shard its id names. A test asserting on stored rows reads them where the service put them.
 */
export const globalDb: D1Database = env.DB;

/** The shard `n` of the test pool (1 or 2). */
export function shardDb(n: number): D1Database {
  const db = (env as unknown as Record<string, D1Database | undefined>)[`SHARD_${n}`];
  if (db) return db;
  if (n === 1) return env.DB;
  throw new Error(`the test pool binds no SHARD_${n}`);
}

/** The shard holding the record `id` names (an envelope, signer, vault record, batch, delivery, event…). */
export const shardDbOf = (id: string): D1Database => shardDb(shardOf(id));

/** The organization's current shard: where its envelopes, customers and batches created now are. */
export async function orgShardDb(orgId: string): Promise<D1Database> {
  const row = await env.DB.prepare("SELECT current_shard_id FROM organizations WHERE id = ?").bind(orgId).first<{ current_shard_id: number }>();
  return shardDb(row?.current_shard_id ?? 1);
}

/** Every shard of the test pool, for a read that must see all of them (a job's whole sweep). */
export function allShardDbs(): D1Database[] {
  const out: D1Database[] = [];
  for (let n = 1; ; n++) {
    const db = (env as unknown as Record<string, D1Database | undefined>)[`SHARD_${n}`];
    if (!db) break;
    out.push(db);
  }
  return out.length > 0 ? out : [env.DB];
}
