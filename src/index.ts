import { app } from "./app";
import type { Env, OutboxMessage } from "./env";
import { dispatchEvents } from "./jobs/dispatch-events";
import { INTEGRITY_SWEEP_CRON } from "./jobs/integrity-sweep";
import { runMinute, runShardTicks, startIntegrityCycles } from "./jobs/minute";
import { systemContext } from "./lib/context";
import { withFaults } from "./lib/faults";
import { cronClock } from "./lib/cron-clock";

export { RateLimiter } from "../durable-objects/rate-limiter";
export { BulkBatch } from "./jobs/bulk-batch";
export { PoolTransfer } from "./jobs/pool-transfer";

export default {
  // Every handler takes its env through withFaults: in development with FAULTS set, the bindings and
  // outbound fetch fail on demand (src/lib/faults.ts); otherwise the env is handed through untouched.
  fetch: (request: Request, env: Env, ctx: ExecutionContext) => withFaults(env, (env) => app.fetch(request, env, ctx)),

  queue: (batch: MessageBatch<OutboxMessage>, env: Env, ctx: ExecutionContext) => withFaults(env, (env) => consume(batch, env, ctx)),

  scheduled: (controller: ScheduledController, env: Env, ctx: ExecutionContext) => withFaults(env, (env) => runScheduled(controller, env, ctx)),
} satisfies ExportedHandler<Env, OutboxMessage>;

async function consume(batch: MessageBatch<OutboxMessage>, env: Env, ctx: ExecutionContext): Promise<void> {
  const services = systemContext(env, (p) => ctx.waitUntil(p));
  // shard_tick messages (the minute cron past 8 shards) run their shard's jobs; dispatchEvents skips them
  await Promise.all([dispatchEvents(services, batch), runShardTicks(services, batch.messages)]);
}

async function runScheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
  const services = systemContext(env, (p) => ctx.waitUntil(p));
  const { cron, now } = cronClock(controller, env);
  // Per shard (docs/decisions/shards.md 3, "Crons"): every bound shard's jobs, shards concurrently
  // (past 8 shards, one shard_tick each on the queue); global jobs once. One failing job must not
  // starve the others for that minute: all run, then the failures are reported together.
  const failed =
    cron === INTEGRITY_SWEEP_CRON ? await startIntegrityCycles(services, now) : (await runMinute(services, now)).failed;
  if (failed.length > 0) {
    console.error(JSON.stringify({ level: "error", cron, failed }));
    throw new Error(`scheduled jobs failed: ${failed.join("; ")}`);
  }
}

