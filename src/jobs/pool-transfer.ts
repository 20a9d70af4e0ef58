import type { BulkHooks, BulkRun, ChunkOutcome } from "../../durable-objects/bulk-batch";
import type { Env } from "../env";
import { createContext } from "../lib/context";
import { armObjectFaults, FaultedWorkflow, underObjectFaults } from "./object-faults";
import { publishEvents } from "../services/webhooks/publish";
import { runPoolChunk } from "../services/pools/move-pool";

/**
 * The POOL_TRANSFER Durable Object class (wrangler.toml): one instance per accepted pool (named by the
 * pool id; `run.batchId` is the pool id), the checkpointed scheduler of durable-objects/bulk-batch.ts
 * driving services/pools/move-pool.ts a chunk per alarm. Crash injection (BULK_TEST_HOOKS, tests only)
 * works as for bulk send. Giving up after repeated chunk failures only stops this run: the pool stays
 * accepted and incomplete, and the minute job (services/pools/tend-pools.ts) starts it again.
 */
export class PoolTransfer extends FaultedWorkflow {
  protected runChunk(run: BulkRun, hooks: BulkHooks): Promise<ChunkOutcome> {
    return underObjectFaults(this.env, this.ctx.storage, (env) => runPoolChunk(this.system(env), { poolId: run.batchId, hooks }));
  }

  /** Test hook (BULK_TEST_HOOKS, tests only): a FAULTS plan for this object's chunks (./object-faults.ts); null disarms it. */
  async armFaults(plan: string | null): Promise<void> {
    armObjectFaults(this.env, this.ctx.storage, plan);
  }

  protected async giveUp(run: BulkRun, reason: string): Promise<void> {
    console.error(JSON.stringify({ level: "error", pool: run.batchId, gave_up: reason, resumes: "the minute job starts the pool's move again" }));
  }

  private system(env: Env) {
    return createContext(env, (p) => this.ctx.waitUntil(p), { requestId: `pool_${crypto.randomUUID()}`, publisher: publishEvents });
  }
}
