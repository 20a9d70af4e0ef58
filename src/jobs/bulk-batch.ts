import { BulkBatchWorkflow, type BulkHooks, type BulkRun, type ChunkOutcome } from "../../durable-objects/bulk-batch";
import type { Env } from "../env";
import { createContext } from "../lib/context";
import { publishEvents } from "../services/webhooks/publish";
import { failBulkBatch, runBulkChunk } from "../services/bulk/run-chunk";

/**
 * The BULK_BATCH Durable Object class (wrangler.toml): the scheduler of durable-objects/bulk-batch.ts
 * with the Worker's work plugged in. It lives in the jobs layer because it calls services, which the
 * durable-objects layer may not import (test/conventions.spec.ts; docs/decisions/bulk-send.md).
 */
export class BulkBatch extends BulkBatchWorkflow<Env> {
  protected runChunk(run: BulkRun, hooks: BulkHooks): Promise<ChunkOutcome> {
    return runBulkChunk(this.system(), { ...run, hooks });
  }

  protected giveUp(run: BulkRun, reason: string): Promise<void> {
    return failBulkBatch(this.system(), { ...run, reason });
  }

  /** The system actor, and a chunk's events delivered from here right after each commit, as a request's are (services/events/publish.ts). */
  private system() {
    return createContext(this.env, (p) => this.ctx.waitUntil(p), { requestId: `bulk_${crypto.randomUUID()}`, publisher: publishEvents });
  }
}
