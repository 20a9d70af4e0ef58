import type { Env } from "../env";
import { PREFIXES } from "./ids";
import { randomToken } from "./random-ids.mjs";

/**
 * Global and shard databases (docs/decisions/shards.md). `DB` holds what a request must
 * find before it knows a shard (credentials, organizations and their placement, per-organization
 * configuration); every `SHARD_<n>` binding holds what grows with envelopes. All run the same
 * migrations. The two handles are branded so a repository of a global table cannot be handed a shard
 * and the other way round: that mix does not compile.
 */
declare const database: unique symbol;
export type GlobalDb = D1Database & { readonly [database]: "global" };
export type ShardDb = D1Database & { readonly [database]: "shard" };

/** The highest shard number an id may name (four digits). */
export const MAX_SHARD = 9999;

const TAGGED_ID = /^[a-z]+_([1-9][0-9]{0,3})_[0-9a-z]{26}$/;
const TAGGED_SLUG = /^([1-9][0-9]{0,3})_[0-9a-z]{26}$/;
const SHARD_BINDING = /^SHARD_([1-9][0-9]{0,3})$/;

/**
 * The shard an id (or signer slug) names: `env_2_…` → 2, `2_…` (a slug) → 2. Ids issued before
 * sharding (`env_…`, one underscore) and anything else name shard 1, where those rows are.
 */
export function shardOf(id: string): number {
  const m = TAGGED_ID.exec(id) ?? TAGGED_SLUG.exec(id);
  return m ? Number(m[1]) : 1;
}

/** Whether an id carries a shard number (a record placed since sharding). */
export const isShardTagged = (id: string): boolean => TAGGED_ID.test(id) || TAGGED_SLUG.test(id);

/** A new id of a per-envelope kind, naming its shard: `<prefix>_<n>_<26 base32>`. */
export function newShardId(kind: keyof typeof PREFIXES, shard: number): string {
  return `${PREFIXES[kind]}_${shard}_${randomToken(16)}`;
}

/** A new signer slug on a shard: `<n>_<26 base32>` (128 random bits, as before). */
export const newShardSlug = (shard: number): string => `${shard}_${randomToken(16)}`;

export const globalDb = (env: Env): GlobalDb => env.DB as GlobalDb;

/**
 * The shard's binding, or null when this deployment binds no such shard. A deployment that binds no
 * `SHARD_1` (one database, as before sharding) has `DB` as its shard 1.
 */
export function shardDb(env: Env, shard: number): ShardDb | null {
  const binding = (env as unknown as Record<string, D1Database | undefined>)[`SHARD_${shard}`];
  if (binding) return binding as ShardDb;
  return shard === 1 ? (env.DB as ShardDb) : null;
}

/** The shard numbers this deployment binds, ascending (at least 1). */
export function boundShards(env: Env): number[] {
  const numbers = Object.keys(env)
    .map((k) => SHARD_BINDING.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]));
  if (!numbers.includes(1)) numbers.push(1);
  return numbers.sort((a, b) => a - b);
}
