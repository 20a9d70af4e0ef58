import type { BulkHooks, BulkRun, ChunkOutcome } from "../../durable-objects/bulk-batch";
import type { Env } from "../env";
import { createContext } from "../lib/context";
import { armObjectFaults, FaultedWorkflow, underObjectFaults } from "./object-faults";
import { publishEvents } from "../services/webhooks/publish";
import { failBulkBatch, runBulkChunk } from "../services/bulk/run-chunk";

/**
 * The BULK_BATCH Durable Object class (wrangler.toml): the scheduler of durable-objects/bulk-batch.ts
 * with the Worker's work plugged in. It lives in the jobs layer because it calls services, which the
 * durable-objects layer may not import (test/conventions.spec.ts; docs/decisions/bulk-send.md).
 */
export class BulkBatch extends FaultedWorkflow {
  protected runChunk(run: BulkRun, hooks: BulkHooks): Promise<ChunkOutcome> {
    return underObjectFaults(this.env, this.ctx.storage, (env) => runBulkChunk(this.system(env), { ...run, hooks }));
  }

  protected giveUp(run: BulkRun, reason: string): Promise<void> {
    return underObjectFaults(this.env, this.ctx.storage, (env) => failBulkBatch(this.system(env), { ...run, reason }));
  }

  /** Test hook (BULK_TEST_HOOKS, tests only): a FAULTS plan for this object's chunks (./object-faults.ts); null disarms it. */
  async armFaults(plan: string | null): Promise<void> {
    armObjectFaults(this.env, this.ctx.storage, plan);
  }

  /** The system actor, and a chunk's events delivered from here right after each commit, as a request's are (services/events/publish.ts). */
  private system(env: Env) {
    return createContext(env, (p) => this.ctx.waitUntil(p), { requestId: `bulk_${crypto.randomUUID()}`, publisher: publishEvents });
  }
}
