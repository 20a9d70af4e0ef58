import { app } from "./app";
import type { Env, OutboxMessage } from "./env";
import { dispatchEvents } from "./jobs/dispatch-events";
import { expireEnvelopes } from "./jobs/expire-envelopes";
import { continueIntegritySweep, INTEGRITY_SWEEP_CRON, startIntegritySweep } from "./jobs/integrity-sweep";
import { relayOutbox } from "./jobs/relay-outbox";
import { sweepDeliveries } from "./jobs/sweep-deliveries";
import { serviceContext } from "./services/context";

export { RateLimiter } from "../durable-objects/rate-limiter";

export default {
  fetch: app.fetch,

  async queue(batch: MessageBatch<OutboxMessage>, env: Env): Promise<void> {
    await dispatchEvents(batch, env);
  },

  async scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    const services = serviceContext(env, (p) => ctx.waitUntil(p));
    const now = new Date(controller.scheduledTime);
    if (controller.cron === INTEGRITY_SWEEP_CRON) {
      await startIntegritySweep(services, now);
      return;
    }
    await expireEnvelopes(services, now);
    await relayOutbox(env, now);
    await sweepDeliveries(env, now);
    await continueIntegritySweep(services, now);
  },
} satisfies ExportedHandler<Env, OutboxMessage>;
