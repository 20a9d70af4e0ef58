import type { BulkHooks, ChunkOutcome } from "../../../durable-objects/bulk-batch";
import { SYSTEM_ACTOR } from "../../lib/actor";
import { onShard, onShardOf, type RequestContext } from "../../lib/context";
import { shardDb } from "../../lib/shards";
import { isTransient } from "../../lib/error-handler";
import { outboxInsert } from "../events/outbox";
import { nowIso } from "../../lib/time";
import { commitEnvelopeChange, commitPlanned, isEnvelopeRace, planChange, type EnvelopeChange, type PlannedChange } from "../envelopes/commit";
import { acceptedChange } from "../control/answer-transfer";
import { planControlStep, type ControlStep } from "../control/commit-control";
import { listPendingPoolHolds, type TransferRow } from "../control/repository";
import { readControl, readControlMany, type ControlState } from "../control/state";
import { readRecordsOnce, type RecordReader } from "../vault/record-reads";
import { notFound } from "../../lib/errors";
import { getPool, poolCompleted, poolCompletedHere, poolShards, type PoolRow } from "./repository";

/**
 * Records moved per chunk (one alarm of the pool's Durable Object), read together (a fixed number of
 * statements per shard: readControlMany, readRecordsOnce, the parties' names and key history once),
 * planned, and committed in one batch of six statements a record: 128 records run about 800 statements,
 * under D1's 1,000 per invocation (docs/decisions/d1-statement-budget.md; held there by
 * test/hardening/statement-budget.spec.ts), with room for RACE_FALLBACK records moved one by one.
 */
export const POOL_CHUNK = 128;

/**
 * Records of a chunk whose batch lost a race moved one by one (moveRecord, about 30 statements each: a
 * single step's reads and writes) before the chunk ends; the rest stay held for the next chunk, which
 * reads them again and commits them together.
 */
export const RACE_FALLBACK = 4;

/**
 * A record of an accepted pool, planned as moved (docs/control.md "Pools"): the hold settled `accepted`
 * and the record's control columns changed as an accepted transfer's would, with a chain entry
 * `vault.control_transferred` naming the pool (and the receiver's Control-Signature, if it signed) and a
 * new certificate version whose PDF is rendered on its first read, not here. No webhook event: the
 * parties receive one `vault.pool_accepted` each once every record moved. Null: the hold is no longer
 * the record's pending transfer (moved by an earlier run whose checkpoint was lost), so it is left alone.
 */
async function planPoolMove(ctx: RequestContext, pool: PoolRow, hold: TransferRow, state: ControlState, at: string, reader?: RecordReader): Promise<EnvelopeChange | null> {
  if (!state.pending || state.pending.id !== hold.id) return null;
  const signature = pool.answer_signature ? (JSON.parse(pool.answer_signature) as { kid: string; jws: string }) : null;
  const step: ControlStep = {
    action: "vault.control_transferred",
    fromOrgId: hold.from_org_id,
    toOrgId: hold.to_org_id,
    transferId: hold.id,
    transfer: { settle: { id: hold.id, status: "accepted" } },
    change: acceptedChange(hold),
    detail: { kind: hold.kind, pool_id: pool.id, manifest_sha256: pool.manifest_sha256, ...(signature ? { control_signature: signature } : {}) },
    signature: null,
    quiet: true,
  };
  return (await planControlStep(ctx, state, step, at, { renderPdf: false, reader })).change;
}

/** One record moved on its own, through the envelope's commit and its retries (a chunk whose batch lost a race). */
async function moveRecord(ctx: RequestContext, pool: PoolRow, hold: TransferRow): Promise<void> {
  await commitEnvelopeChange(ctx, {
    read: () => readControl(ctx.db, hold.vault_id),
    envelopeOf: (state) => state.envelope,
    plan: async (state, at) => ({ change: await planPoolMove(ctx, pool, hold, state, at), result: undefined }),
  });
}

/**
 * Moves one shard's chunk of holds: every record's control state and facts read together (one batch
 * each for the whole chunk: readControlMany, readRecordsOnce), each record planned on them exactly as
 * a single step is (planControlStep), then every plan committed in one batch through the envelope's
 * commit (commitPlanned, as bulk send commits its chunk): all of the chunk's records move, or none. If
 * any record changed since it was read (its chain advanced: the batch is refused whole), the first
 * RACE_FALLBACK records are moved on their own instead, under the commit's retry policy (a record
 * already moved is left alone), and the rest are left held for the next chunk (`more`).
 */
async function moveChunk(ctx: RequestContext, pool: PoolRow, holds: TransferRow[], hooks: BulkHooks): Promise<{ deferred: number; raced: boolean }> {
  holds.forEach(() => hooks.checkpoint("before_record"));
  let states: Map<string, ControlState>;
  let reader: RecordReader;
  try {
    states = await readControlMany(ctx.db, holds.map((h) => h.vault_id));
    reader = await readRecordsOnce(ctx.db, [...states.values()].map((s) => s.envelope.id));
  } catch (err) {
    // a read that failed for a moment leaves the chunk for the next one (its holds stay pending)
    if (!isTransient(err)) throw err;
    return { deferred: holds.length, raced: false };
  }
  const planned: PlannedChange[] = [];
  let deferred = 0;
  await Promise.all(
    holds.map(async (hold) => {
      const state = states.get(hold.vault_id);
      if (!state) throw notFound("Vault record");
      try {
        const at = nowIso();
        const change = await planPoolMove(ctx, pool, hold, state, at, reader);
        if (change) planned.push(await planChange(ctx, state.envelope, change, at));
      } catch (err) {
        // a read of the parties (names, key history, in global) that failed for a moment leaves this record
        // for the next chunk (its hold stays pending) rather than failing the others with it
        if (!isTransient(err)) throw err;
        deferred += 1;
      }
    }),
  );
  hooks.checkpoint("before_chunk");
  try {
    if (planned.length > 0) await commitPlanned(ctx, planned);
  } catch (err) {
    if (!isEnvelopeRace(err)) throw err;
    for (const hold of holds.slice(0, RACE_FALLBACK)) await moveRecord(ctx, pool, hold);
    hooks.checkpoint("chunk_moved");
    return { deferred, raced: holds.length > RACE_FALLBACK };
  }
  for (let i = 0; i < planned.length; i++) hooks.checkpoint("record_moved");
  hooks.checkpoint("chunk_moved");
  return { deferred, raced: false };
}

/**
 * One chunk of an accepted pool's move, run by its Durable Object (jobs/pool-transfer.ts): up to
 * POOL_CHUNK records still held, shard by shard, each shard's share committed in one batch
 * (moveChunk); when none is left, the pool is marked completed and `vault.pool_accepted` goes to both
 * parties, in one batch on the pool's shard (the events only if this run's guarded update completed it). Checkpoints (crash injection in tests): `before_record`
 * (once per record, before the chunk's reads), `before_chunk` (planned, not committed), `record_moved` (after the batch,
 * once per record in it), `chunk_moved`, `before_complete`, `completed`. Whatever stops a chunk, the
 * next one reads the holds again: a moved record's hold is no longer pending, so nothing moves twice
 * and nothing is missed.
 */
export async function runPoolChunk(system: RequestContext, input: { poolId: string; hooks: BulkHooks }): Promise<ChunkOutcome> {
  const home = onShardOf(system, input.poolId);
  const pool = await getPool(home.db, input.poolId);
  if (!pool || pool.status !== "accepted" || pool.completed_at) return "done";
  let budget = POOL_CHUNK;
  for (const shard of poolShards(pool)) {
    if (!shardDb(system.env, shard)) continue;
    const ctx = { ...onShard(system, shard, true), actor: SYSTEM_ACTOR };
    const holds = await listPendingPoolHolds(ctx.db, pool.id, budget);
    if (holds.length > 0) {
      const moved = await moveChunk(ctx, pool, holds, input.hooks);
      // records deferred by a passing failure: the next chunk, after the scheduler's backoff, takes them again
      if (moved.deferred > 0) return "backoff";
      // a lost race left some of the chunk held: the next chunk reads them again
      if (moved.raced) return "more";
    }
    budget -= holds.length;
    if (budget <= 0) return "more";
  }
  input.hooks.checkpoint("before_complete");
  const at = new Date().toISOString();
  const data = { pool_id: pool.id, kind: pool.kind, from_org_id: pool.from_org_id, to_org_id: pool.to_org_id, count: pool.count, manifest_sha256: pool.manifest_sha256, accepted_at: pool.settled_at };
  // each event only if this run's update completed the pool (two overlapping runs: one sends them)
  const events = [pool.from_org_id, pool.to_org_id].map((orgId) =>
    outboxInsert(home.db, {
      orgId,
      envelopeId: null,
      shard: home.shardId,
      type: "vault.pool_accepted",
      data,
      at,
      onlyIf: poolCompletedHere({ poolId: pool.id, at, orgId, settledAt: pool.settled_at ?? pool.created_at }),
    }),
  );
  const [done] = await home.db.batch([poolCompleted(home.db, pool.id, at), ...events.map((e) => e.statement)]);
  if (done!.meta.changes === 1) home.publish(...events.map((e) => e.id));
  input.hooks.checkpoint("completed");
  return "done";
}
