import { BulkBatchWorkflow, type BulkHooks, type BulkRun, type ChunkOutcome } from "../../durable-objects/bulk-batch";
import type { Env } from "../env";
import { systemContext } from "../lib/context";
import { failBulkBatch, runBulkChunk } from "../services/bulk/run-chunk";

/**
 * The BULK_BATCH Durable Object class (wrangler.toml): the scheduler of durable-objects/bulk-batch.ts
 * with the Worker's work plugged in. It lives in the jobs layer because it calls services, which the
 * durable-objects layer may not import (test/conventions.test.ts; docs/decisions.md, "Bulk send").
 */
export class BulkBatch extends BulkBatchWorkflow<Env> {
  protected runChunk(run: BulkRun, hooks: BulkHooks): Promise<ChunkOutcome> {
    return runBulkChunk(this.system(), { ...run, hooks });
  }

  protected giveUp(run: BulkRun, reason: string): Promise<void> {
    return failBulkBatch(this.system(), { ...run, reason });
  }

  private system() {
    return systemContext(this.env, (p) => this.ctx.waitUntil(p), `bulk_${crypto.randomUUID()}`);
  }
}
