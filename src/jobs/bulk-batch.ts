import { BulkBatchWorkflow, type BulkHooks, type BulkRun, type ChunkOutcome } from "../../durable-objects/bulk-batch";
import type { Env } from "../env";
import { createContext } from "../lib/context";
import { withFaults } from "../lib/faults";
import { publishEvents } from "../services/webhooks/publish";
import { failBulkBatch, runBulkChunk } from "../services/bulk/run-chunk";

/**
 * The BULK_BATCH Durable Object class (wrangler.toml): the scheduler of durable-objects/bulk-batch.ts
 * with the Worker's work plugged in. It lives in the jobs layer because it calls services, which the
 * durable-objects layer may not import (test/conventions.spec.ts; docs/decisions/bulk-send.md).
 */
export class BulkBatch extends BulkBatchWorkflow<Env> {
  protected runChunk(run: BulkRun, hooks: BulkHooks): Promise<ChunkOutcome> {
    return this.underFaults((env) => runBulkChunk(this.system(env), { ...run, hooks }));
  }

  protected giveUp(run: BulkRun, reason: string): Promise<void> {
    return this.underFaults((env) => failBulkBatch(this.system(env), { ...run, reason }));
  }

  /** Test hook (BULK_TEST_HOOKS, tests only): a FAULTS plan for this object's chunks; null disarms it. */
  async armFaults(plan: string | null): Promise<void> {
    if (this.env.BULK_TEST_HOOKS !== "true") throw new Error("fault injection by hand is available only with BULK_TEST_HOOKS=true (tests)");
    if (plan === null) this.ctx.storage.kv.delete("faults");
    else this.ctx.storage.kv.put("faults", plan);
  }

  /**
   * The object's alarms do not pass through src/index.ts, where a request's env meets the fault layer
   * (docs/decisions/fault-layer.md): a chunk takes its D1, R2, queue and outbound calls through it here,
   * so a development server's FAULTS reaches bulk send too (the soak), and nothing is wrapped elsewhere.
   */
  private underFaults<T>(run: (env: Env) => T): T {
    const armed = this.env.BULK_TEST_HOOKS === "true" ? this.ctx.storage.kv.get<string>("faults") : undefined;
    return withFaults(armed ? { ...this.env, FAULTS: armed, FAULT_TIMEOUT_MS: "20" } : this.env, run);
  }

  /** The system actor, and a chunk's events delivered from here right after each commit, as a request's are (services/events/publish.ts). */
  private system(env: Env) {
    return createContext(env, (p) => this.ctx.waitUntil(p), { requestId: `bulk_${crypto.randomUUID()}`, publisher: publishEvents });
  }
}
