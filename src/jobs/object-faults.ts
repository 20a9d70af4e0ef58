import { BulkBatchWorkflow } from "../../durable-objects/bulk-batch";
import type { Env } from "../env";
import { withFaults, wrapObjectStorage } from "../lib/faults";

/**
 * The fault layer for the workflow objects' chunks (bulk send, pool transfers). Their alarms do not pass
 * through src/index.ts, where a request's env meets the layer (docs/decisions/fault-layer.md), so a chunk
 * takes its D1, R2, queue and outbound calls through it here: a development server's FAULTS reaches them
 * as it reaches requests. A test arms a plan on one object (`armObjectFaults`, BULK_TEST_HOOKS only).
 */
export function underObjectFaults<T>(env: Env, storage: DurableObjectStorage, run: (env: Env) => T): T {
  const armed = env.BULK_TEST_HOOKS === "true" ? storage.kv.get<string>("faults") : undefined;
  return withFaults(armed ? { ...env, FAULTS: armed, FAULT_TIMEOUT_MS: "20" } : env, run);
}

/** Test hook: a FAULTS plan for this object's chunks; null disarms it. Refused outside the tests. */
export function armObjectFaults(env: Env, storage: DurableObjectStorage, plan: string | null): void {
  if (env.BULK_TEST_HOOKS !== "true") throw new Error("fault injection by hand is available only with BULK_TEST_HOOKS=true (tests)");
  if (plan === null) storage.kv.delete("faults");
  else storage.kv.put("faults", plan);
}

/**
 * The workflow objects (BulkBatch, PoolTransfer) with their own storage under the fault layer too: each
 * alarm runs as one invocation of the plan (a development server's FAULTS, or the plan a test armed), and
 * the run's reads and writes of its storage (the run, its counters, the watchdog and next alarms) roll
 * its `do.storage` rules. A fault there throws out of the alarm, which the runtime retries, and the
 * retried alarm runs the chunk again from D1, as after an eviction (docs/decisions/fault-layer.md).
 */
export abstract class FaultedWorkflow extends BulkBatchWorkflow<Env> {
  private faulted: DurableObjectStorage | null = null;

  protected override get storage(): DurableObjectStorage {
    return (this.faulted ??= wrapObjectStorage(this.ctx.storage));
  }

  override alarm(): Promise<void> {
    return underObjectFaults(this.env, this.ctx.storage, () => super.alarm());
  }
}
