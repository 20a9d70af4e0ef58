import { app } from "./app";
import type { Env, OutboxMessage } from "./env";
import { dispatchEvents } from "./jobs/dispatch-events";
import { INTEGRITY_SWEEP_CRON } from "./jobs/integrity-sweep";
import { runMinute, runShardTicks, startIntegrityCycles } from "./jobs/minute";
import { systemContext } from "./lib/context";

export { RateLimiter } from "../durable-objects/rate-limiter";
export { BulkBatch } from "./jobs/bulk-batch";
export { PoolTransfer } from "./jobs/pool-transfer";

export default {
  fetch: app.fetch,

  async queue(batch: MessageBatch<OutboxMessage>, env: Env, ctx: ExecutionContext): Promise<void> {
    const services = systemContext(env, (p) => ctx.waitUntil(p));
    // shard_tick messages (the minute cron past 8 shards) run their shard's jobs; dispatchEvents skips them
    await Promise.all([dispatchEvents(services, batch), runShardTicks(services, batch.messages)]);
  },

  async scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    const services = systemContext(env, (p) => ctx.waitUntil(p));
    const now = new Date(controller.scheduledTime);
    // Per shard (docs/decisions/shards.md 3, "Crons"): every bound shard's jobs, shards concurrently
    // (past 8 shards, one shard_tick each on the queue); global jobs once. One failing job must not
    // starve the others for that minute: all run, then the failures are reported together.
    const failed =
      controller.cron === INTEGRITY_SWEEP_CRON ? await startIntegrityCycles(services, now) : (await runMinute(services, now)).failed;
    if (failed.length > 0) {
      console.error(JSON.stringify({ level: "error", cron: controller.cron, failed }));
      throw new Error(`scheduled jobs failed: ${failed.join("; ")}`);
    }
  },
} satisfies ExportedHandler<Env, OutboxMessage>;
