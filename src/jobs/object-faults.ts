import type { Env } from "../env";
import { withFaults } from "../lib/faults";

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
