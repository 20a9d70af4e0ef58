import type { Actor } from "../../lib/actor";
import { conflict } from "../../lib/errors";
import { ORG_CHAIN_ATTEMPTS, retryRaces } from "../../lib/retry";
import type { ShardDb } from "../../lib/shards";
import type { AuditAction } from "../audit/actions";
import { auditInsert, isChainConflict, readChainHead } from "../audit/chain";

/**
 * Appends an entry to a bulk batch's own audit chain (`chain_id` = batch id, docs/decisions/shards.md 1)
 * in one D1 batch with the change it records, on the batch's shard: the `bulk_batch.*` actions that
 * were org-chain entries before sharding. Two writers racing for the same sequence number collide on
 * the unique index; the loser re-reads the head and tries again (lib/retry.ts), as the org chain does.
 *
 * `guarded`: the first statement is an UPDATE guarded on the state the caller read; the entry is written
 * only if it changed a row. Results keep the callers' indexes (the entry's result last).
 */
export async function commitWithBatchAudit(
  db: ShardDb,
  input: { orgId: string; batchId: string; action: AuditAction; actor: Actor; data: Record<string, unknown>; at: string },
  statements: D1PreparedStatement[],
  opts: { guarded?: boolean } = {},
): Promise<D1Result[]> {
  const { batchId, ...entry } = input;
  return retryRaces(
    async () => {
      const head = await readChainHead(db, batchId);
      const audit = await auditInsert(db, { ...entry, chainId: batchId, head, onlyIfPreviousChanged: opts.guarded === true });
      if (!opts.guarded) return db.batch([...statements, audit.statement]);
      const results = await db.batch([statements[0]!, audit.statement, ...statements.slice(1)]);
      return [results[0]!, ...results.slice(2), results[1]!];
    },
    isChainConflict,
    () => conflict("The batch is busy with concurrent changes; retry"),
    ORG_CHAIN_ATTEMPTS,
  );
}
