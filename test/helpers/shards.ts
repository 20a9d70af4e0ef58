import { env } from "cloudflare:test";
import { shardOf, type GlobalDb, type ShardDb } from "../../src/lib/shards";

/**
 * The databases as a test reads them (docs/decisions/shards.md): `globalDb` holds organizations,
 * credentials, templates, endpoints, disclosures and control keys; everything per envelope is on the
 * shard its id names. A test asserting on stored rows reads them where the service put them. Typed as
 * the source's handles, so a repository function takes them as they are.
 */
export const globalDb = env.DB as GlobalDb;

/** The shard `n` of the test pool (1 or 2). */
export function shardDb(n: number): ShardDb {
  const db = (env as unknown as Record<string, D1Database | undefined>)[`SHARD_${n}`];
  if (db) return db as ShardDb;
  if (n === 1) return env.DB as ShardDb;
  throw new Error(`the test pool binds no SHARD_${n}`);
}

/** The shard holding the record `id` names (an envelope, signer, vault record, batch, delivery, event…). */
export const shardDbOf = (id: string): ShardDb => shardDb(shardOf(id));

/** The organization's current shard: where its envelopes, customers and batches created now are. */
export async function orgShardDb(orgId: string): Promise<ShardDb> {
  const row = await env.DB.prepare("SELECT current_shard_id FROM organizations WHERE id = ?").bind(orgId).first<{ current_shard_id: number }>();
  return shardDb(row?.current_shard_id ?? 1);
}

/** Every shard of the test pool, for a read that must see all of them (a job's whole sweep). */
export function allShardDbs(): ShardDb[] {
  const out: ShardDb[] = [];
  for (let n = 1; ; n++) {
    const db = (env as unknown as Record<string, D1Database | undefined>)[`SHARD_${n}`];
    if (!db) break;
    out.push(db as ShardDb);
  }
  return out.length > 0 ? out : [env.DB as ShardDb];
}

/** The number of the organization's current shard (read from the global database). */
export async function orgShardNumber(orgId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT current_shard_id FROM organizations WHERE id = ?").bind(orgId).first<{ current_shard_id: number }>();
  return row?.current_shard_id ?? 1;
}

/** The binding name that holds shard `n` in `bindings`: `SHARD_<n>`, or `DB` for shard 1 when no `SHARD_1` is bound. */
export function shardBinding(n: number, bindings: object = env): string {
  if ((bindings as Record<string, unknown>)[`SHARD_${n}`]) return `SHARD_${n}`;
  if (n === 1) return "DB";
  throw new Error(`the test pool binds no SHARD_${n}`);
}

/**
 * `bindings` with shard `n`'s database replaced by `wrap(it)` (a raced, failing or counting proxy). When
 * shard 1 is `DB` itself (no `SHARD_1` bound), `DB` is wrapped, as it is the same database.
 */
export function withShard<E extends object>(bindings: E, n: number, wrap: (db: D1Database) => D1Database): E {
  const name = shardBinding(n, bindings);
  return { ...bindings, [name]: wrap((bindings as Record<string, D1Database>)[name]!) };
}

/** `bindings` with every database (`DB` and each `SHARD_<n>`) wrapped: a proxy that must see every statement. */
export function withEveryDb<E extends object>(bindings: E, wrap: (db: D1Database) => D1Database): E {
  const out = { ...bindings } as Record<string, unknown>;
  for (const [name, value] of Object.entries(bindings)) if (name === "DB" || /^SHARD_[1-9][0-9]*$/.test(name)) out[name] = wrap(value as D1Database);
  return out as unknown as E;
}

/**
 * Every distinct database of the test pool, the global one first: for a read of rows that may live on
 * either side (all audit entries of an organization: its org chain globally, its records' chains on shards).
 */
export const everyDb = (): D1Database[] => [...new Set<D1Database>([env.DB, ...allShardDbs()])];

/**
 * Marks sent every email still queued or failed in every database: for a spec that runs the email retry
 * job, which takes the 50 oldest due emails of a database. A spec shares its suite's runtime with the
 * specs before it (docs/decisions/test-suite-time.md), whose emails would otherwise be due first.
 */
export async function settleEarlierEmails(): Promise<void> {
  await Promise.all(everyDb().map((db) => db.prepare("UPDATE email_outbox SET status = 'sent', next_attempt_at = NULL WHERE status IN ('queued', 'failed')").run()));
}
