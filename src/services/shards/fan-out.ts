import { onShard, type RequestContext } from "../../lib/context";
import { shardDb } from "../../lib/shards";

/** A page read on one shard: its window of rows (newest first unless `compare` says otherwise) and the shard's total. */
export type ShardPage<T> = { rows: T[]; total: number };

const newestFirst = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  a.created_at === b.created_at ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.created_at < b.created_at ? 1 : -1;

/**
 * An org-wide list over the organization's shards (docs/decisions/shards.md 3): the same filtered query
 * on every shard, each asked for its first `offset + limit` rows in the list's order and its count; the
 * rows merged in that order and `[offset, offset + limit)` returned; `total` is the sum of the counts.
 * One shard (the usual case) is asked for exactly the page. A shard of the set this deployment does not
 * bind holds nothing readable here and is left out (onShard would answer it from shard 1, counted twice).
 */
export async function listAcrossShards<C extends RequestContext, T>(
  ctx: C,
  shards: readonly number[],
  page: { limit: number; offset: number },
  read: (shardCtx: C, window: { limit: number; offset: number }) => Promise<ShardPage<T>>,
  compare: (a: T, b: T) => number = newestFirst as unknown as (a: T, b: T) => number,
): Promise<ShardPage<T>> {
  shards = readableShards(ctx, shards);
  if (shards.length <= 1) return read(onShard(ctx, shards[0] ?? 1), page);
  const window = { limit: page.offset + page.limit, offset: 0 };
  const pages = await Promise.all(shards.map((n) => read(onShard(ctx, n), window)));
  const rows = pages.flatMap((p) => p.rows).sort(compare);
  return { rows: rows.slice(page.offset, page.offset + page.limit), total: pages.reduce((sum, p) => sum + p.total, 0) };
}

/** Runs `work` on every shard of `shards` concurrently, each with its shard's context; results in shard order. */
export function onEveryShard<C extends RequestContext, R>(ctx: C, shards: readonly number[], work: (shardCtx: C) => Promise<R>): Promise<R[]> {
  return Promise.all(readableShards(ctx, shards).map((n) => work(onShard(ctx, n))));
}

/** The shards of `shards` this deployment binds, each once. */
const readableShards = (ctx: RequestContext, shards: readonly number[]): number[] => [...new Set(shards)].filter((n) => shardDb(ctx.env, n) !== null);
