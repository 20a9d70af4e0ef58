import { DurableObject } from "cloudflare:workers";

/**
 * The bindings the scheduler itself reads, declared here rather than imported from src/env.ts (which
 * names this class for BULK_BATCH). `BULK_TEST_HOOKS` = "true" enables crash injection; it is set only
 * by the test configuration (vitest.config.ts), never in wrangler.toml or production.
 */
type SchedulerEnv = { BULK_TEST_HOOKS?: string };

/**
 * The run an instance drives: one batch of one organization. The instance is named by the batch id,
 * which names the batch's shard (`bsb_<n>_…`): the Worker's chunk code works on that shard.
 */
export type BulkRun = { batchId: string; orgId: string };

/**
 * What one chunk did: `more` (run the next chunk now), `backoff` (some item failed transiently: run
 * the next chunk after a pause), `done` (every item settled, or the batch was cancelled).
 */
export type ChunkOutcome = "more" | "backoff" | "done";

/** Where the Worker's code reports its progress; with crash injection armed, a step may throw. */
export type BulkHooks = { checkpoint(step: string): void };

/** Thrown by an armed checkpoint: the run stops as if the object had been evicted at that point. */
export class InjectedCrash extends Error {
  override name = "InjectedCrash";
}

/** A crash or eviction mid-chunk leaves this alarm behind: the run resumes from D1 after it. */
export const RESUME_AFTER_MS = 10_000;
/** Pause before the chunk after a transient item failure, growing with consecutive backoffs. */
const BACKOFF_MS = [1_000, 5_000, 15_000, 30_000, 60_000];
/** Consecutive failures of a whole chunk (D1 unreachable, master template gone) before the run gives up. */
export const MAX_CHUNK_FAILURES = 5;

/**
 * One instance per bulk batch (named by the batch id): the durable scheduler of the bulk-send
 * workflow (README.md#architecture). It holds only what drives the run (the run, its failure count, armed test
 * crashes) in its SQLite storage; the batch and its items live in D1, which is the truth the Worker's
 * chunk code reads and writes. Each alarm runs one chunk; a watchdog alarm is set before the chunk
 * starts, so an eviction, a deploy or a thrown error anywhere in it resumes the run later.
 *
 * The work itself is the Worker's (services may not be imported here, see test/conventions.spec.ts):
 * the Worker's subclass (src/jobs/bulk-batch.ts) supplies `runChunk` and `giveUp`.
 */
export abstract class BulkBatchWorkflow<E extends SchedulerEnv = SchedulerEnv> extends DurableObject<E> {
  /** one chunk at a time per instance, even when a test drives the alarm by hand beside the runtime */
  private busy = false;

  /**
   * The storage the run is driven from (its run, counters and alarms). A subclass may put the fault layer
   * in front of it (src/jobs/object-faults.ts); the test hooks below read the object's storage directly.
   */
  protected get storage(): DurableObjectStorage {
    return this.ctx.storage;
  }

  protected abstract runChunk(run: BulkRun, hooks: BulkHooks): Promise<ChunkOutcome>;
  /** the run failed MAX_CHUNK_FAILURES chunks in a row: settle the batch as failed */
  protected abstract giveUp(run: BulkRun, reason: string): Promise<void>;

  /** Starts (or, called again, keeps) the run: idempotent, so a retried submit cannot start two. */
  async start(run: BulkRun): Promise<void> {
    const kv = this.storage.kv;
    if (!kv.get<BulkRun>("run")) {
      kv.put("run", run);
      kv.put("failures", 0);
    }
    await this.storage.setAlarm(Date.now());
  }

  /**
   * The batch was cancelled in D1: run a chunk now, which finishes the items already claimed and
   * settles the batch. Nothing is lost if this call never arrives: the next alarm reads the status.
   */
  async wake(): Promise<void> {
    this.checkpoint("cancel_notified");
    if (this.storage.kv.get<BulkRun>("run")) await this.storage.setAlarm(Date.now());
  }

  /** Test hook: the named checkpoints throw once each (`fail:<step>` throws an ordinary error, a transient failure). */
  async armCrashes(steps: string[]): Promise<void> {
    if (this.env.BULK_TEST_HOOKS !== "true") throw new Error("crash injection is available only with BULK_TEST_HOOKS=true (tests)");
    this.ctx.storage.kv.put("crashes", [...(this.ctx.storage.kv.get<string[]>("crashes") ?? []), ...steps]);
  }

  /** What the scheduler holds, for tests and the operator. */
  async state(): Promise<{ run: BulkRun | null; failures: number; alarm: number | null; crashes: string[] }> {
    const kv = this.ctx.storage.kv;
    return { run: kv.get<BulkRun>("run") ?? null, failures: kv.get<number>("failures") ?? 0, alarm: await this.ctx.storage.getAlarm(), crashes: kv.get<string[]>("crashes") ?? [] };
  }

  override async alarm(): Promise<void> {
    const kv = this.storage.kv;
    const run = kv.get<BulkRun>("run");
    if (!run) return;
    // the watchdog first: whatever happens below, the run is picked up again
    await this.storage.setAlarm(Date.now() + RESUME_AFTER_MS);
    if (this.busy) return;
    this.busy = true;
    let outcome: ChunkOutcome;
    try {
      outcome = await this.runChunk(run, { checkpoint: (step) => this.checkpoint(step) });
    } catch (err) {
      if (err instanceof InjectedCrash) return; // as if evicted here: the watchdog resumes the run
      const failures = (kv.get<number>("failures") ?? 0) + 1;
      console.error(JSON.stringify({ level: "error", bulk_batch: run.batchId, chunk_failure: failures, error: String(err) }));
      if (failures >= MAX_CHUNK_FAILURES) {
        await this.giveUp(run, String(err instanceof Error ? err.message : err));
        this.finish();
        return;
      }
      kv.put("failures", failures);
      await this.storage.setAlarm(Date.now() + BACKOFF_MS[Math.min(failures - 1, BACKOFF_MS.length - 1)]!);
      return;
    } finally {
      this.busy = false;
    }
    if (outcome === "done") {
      this.finish();
      await this.storage.deleteAlarm();
      return;
    }
    const backoffs = outcome === "backoff" ? (kv.get<number>("backoffs") ?? 0) + 1 : 0;
    kv.put("backoffs", backoffs);
    kv.put("failures", 0);
    await this.storage.setAlarm(Date.now() + (backoffs === 0 ? 0 : BACKOFF_MS[Math.min(backoffs - 1, BACKOFF_MS.length - 1)]!));
  }

  private finish(): void {
    const kv = this.storage.kv;
    kv.delete("run");
    kv.delete("failures");
    kv.delete("backoffs");
  }

  private checkpoint(step: string): void {
    if (this.env.BULK_TEST_HOOKS !== "true") return;
    const armed = this.ctx.storage.kv.get<string[]>("crashes") ?? [];
    const i = armed.findIndex((s) => s === step || s === `fail:${step}`);
    if (i < 0) return;
    const hit = armed[i]!;
    this.ctx.storage.kv.put("crashes", armed.filter((_, j) => j !== i));
    if (hit.startsWith("fail:")) throw new Error(`injected failure at ${step}`);
    throw new InjectedCrash(`injected crash at ${step}`);
  }
}

export function bulkBatchFor(env: { BULK_BATCH: DurableObjectNamespace<BulkBatchWorkflow> }, batchId: string) {
  return env.BULK_BATCH.get(env.BULK_BATCH.idFromName(batchId));
}
