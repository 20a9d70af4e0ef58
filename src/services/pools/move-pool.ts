import type { BulkHooks, ChunkOutcome } from "../../../durable-objects/bulk-batch";
import { SYSTEM_ACTOR } from "../../lib/actor";
import { onShard, onShardOf, type RequestContext } from "../../lib/context";
import { shardDb } from "../../lib/shards";
import { outboxInsert } from "../events/outbox";
import { acceptedChange } from "../control/answer-transfer";
import { commitControl } from "../control/commit-control";
import { listPendingPoolHolds, type TransferRow } from "../control/repository";
import { getPool, poolCompleted, poolShards, type PoolRow } from "./repository";

/**
 * Records moved per chunk (one alarm of the pool's Durable Object). Each record is one commit through
 * the envelope's commit (a handful of reads, a certificate rendered to R2, one batch of about eight
 * statements), so a chunk stays far below D1's 1,000 statements per invocation
 * (docs/decisions/d1-statement-budget.md).
 */
export const POOL_CHUNK = 25;

const ALREADY_MOVED = new Error("the hold is no longer pending");

/**
 * Moves one record of an accepted pool (docs/control.md "Pools"): the hold is settled `accepted` and the
 * record's control columns change as an accepted transfer's would, with a chain entry
 * `vault.control_transferred` naming the pool (and the receiver's Control-Signature, if it signed) and a
 * new certificate version, in one batch through commitControl. No webhook event: the parties receive one
 * `vault.pool_accepted` each once every record moved. A hold no longer pending (moved by an earlier run
 * whose checkpoint was lost) is left alone: each record moves exactly once.
 */
async function moveRecord(ctx: RequestContext, pool: PoolRow, hold: TransferRow): Promise<boolean> {
  const signature = pool.answer_signature ? (JSON.parse(pool.answer_signature) as { kid: string; jws: string }) : null;
  try {
    await commitControl({ ...ctx, actor: SYSTEM_ACTOR }, hold.vault_id, async (state) => {
      if (!state.pending || state.pending.id !== hold.id) throw ALREADY_MOVED;
      return {
        step: {
          action: "vault.control_transferred",
          fromOrgId: hold.from_org_id,
          toOrgId: hold.to_org_id,
          transferId: hold.id,
          transfer: { settle: { id: hold.id, status: "accepted" } },
          change: acceptedChange(hold),
          detail: { kind: hold.kind, pool_id: pool.id, manifest_sha256: pool.manifest_sha256, ...(signature ? { control_signature: signature } : {}) },
          signature: null,
          quiet: true,
        },
        result: () => undefined,
      };
    });
    return true;
  } catch (err) {
    if (err === ALREADY_MOVED) return false;
    throw err;
  }
}

/**
 * One chunk of an accepted pool's move, run by its Durable Object (jobs/pool-transfer.ts): up to
 * POOL_CHUNK records still held, shard by shard, each moved in its own commit; when none is left, the
 * pool is marked completed and `vault.pool_accepted` goes to both parties, in one batch on the pool's
 * shard. Checkpoints (crash injection in tests): `before_record`, `record_moved`, `before_complete`,
 * `completed`. Whatever stops a chunk, the next one reads the holds again: a moved record's hold is no
 * longer pending, so nothing moves twice and nothing is missed.
 */
export async function runPoolChunk(system: RequestContext, input: { poolId: string; hooks: BulkHooks }): Promise<ChunkOutcome> {
  const home = onShardOf(system, input.poolId);
  const pool = await getPool(home.db, input.poolId);
  if (!pool || pool.status !== "accepted" || pool.completed_at) return "done";
  let budget = POOL_CHUNK;
  for (const shard of poolShards(pool)) {
    if (!shardDb(system.env, shard)) continue;
    const ctx = onShard(system, shard, true);
    const holds = await listPendingPoolHolds(ctx.db, pool.id, budget);
    for (const hold of holds) {
      input.hooks.checkpoint("before_record");
      await moveRecord(ctx, pool, hold);
      input.hooks.checkpoint("record_moved");
    }
    budget -= holds.length;
    if (budget <= 0) return "more";
  }
  input.hooks.checkpoint("before_complete");
  const at = new Date().toISOString();
  const data = { pool_id: pool.id, kind: pool.kind, from_org_id: pool.from_org_id, to_org_id: pool.to_org_id, count: pool.count, manifest_sha256: pool.manifest_sha256, accepted_at: pool.settled_at };
  const events = [pool.from_org_id, pool.to_org_id].map((orgId) => outboxInsert(home.db, { orgId, envelopeId: null, shard: home.shardId, type: "vault.pool_accepted", data, at }));
  const [done] = await home.db.batch([poolCompleted(home.db, pool.id, at), ...events.map((e) => e.statement)]);
  if (done!.meta.changes === 1) home.publish(...events.map((e) => e.id));
  input.hooks.checkpoint("completed");
  return "done";
}
