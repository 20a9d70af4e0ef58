import type { RequestContext } from "../lib/context";
import { pruneIdempotencyKeys } from "../services/operator/api-keys/repository";
import { IDEMPOTENCY_WINDOW_MS } from "../services/idempotency/keyed-create";
import { pruneIdempotentCreates } from "../services/idempotency/repository";

/** How long an Idempotency-Key record answers a retry (middleware/idempotency.ts: the 24 h window). */
export const IDEMPOTENCY_RETENTION_MS = IDEMPOTENCY_WINDOW_MS;
const BATCH = 1000;
/** Batches per run: at most 5,000 deletions a minute, far above the keyed POSTs any minute adds. */
const MAX_BATCHES = 5;

/**
 * Every minute, once (a global job, not per shard: docs/decisions/shards.md 1): deletes Idempotency-Key
 * records older than 24 h from the global database, oldest first, in batches of 1,000 until a batch
 * finds fewer or five have run. Without it the table would grow per keyed create; with it it holds
 * one rolling day of requests. A record past its window already answers nothing (a reused key takes
 * it over), so no response changes.
 */
export function pruneIdempotency(ctx: RequestContext, now: Date): Promise<{ deleted: number; rowsRead: number }> {
  return pruneOlderThanWindow(now, (input) => pruneIdempotencyKeys(ctx.global, input));
}

/**
 * Every minute, per shard: the same for the marks keyed creates commit beside their records
 * (services/idempotency/keyed-create.ts). A mark past its window would only be forgotten by the retry
 * that meets it.
 */
export function pruneKeyedCreateMarks(ctx: RequestContext, now: Date): Promise<{ deleted: number; rowsRead: number }> {
  return pruneOlderThanWindow(now, (input) => pruneIdempotentCreates(ctx.db, input));
}

async function pruneOlderThanWindow(now: Date, prune: (input: { cutoff: string; limit: number }) => Promise<D1Result>): Promise<{ deleted: number; rowsRead: number }> {
  const cutoff = new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS).toISOString();
  let deleted = 0;
  let rowsRead = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const result = await prune({ cutoff, limit: BATCH });
    const changes = result.meta.changes ?? 0;
    deleted += changes;
    rowsRead += result.meta.rows_read ?? 0;
    if (changes < BATCH) break;
  }
  return { deleted, rowsRead };
}
