import { app } from "./app";
import type { Env, OutboxMessage } from "./env";
import { autoVaultSweep } from "./jobs/auto-vault-sweep";
import { dispatchEvents } from "./jobs/dispatch-events";
import { expireEnvelopes } from "./jobs/expire-envelopes";
import { expireTransfers } from "./jobs/expire-transfers";
import { sendReminders } from "./jobs/send-reminders";
import { continueIntegritySweep, INTEGRITY_SWEEP_CRON, startIntegritySweep } from "./jobs/integrity-sweep";
import { pruneWebhookAttempts } from "./jobs/prune-webhook-attempts";
import { raiseEvidenceJob } from "./jobs/raise-evidence";
import { relayOutbox } from "./jobs/relay-outbox";
import { renewEvidenceRecords } from "./jobs/renew-evidence-records";
import { resumeBulkBatches } from "./jobs/resume-bulk-batches";
import { retryEmails } from "./jobs/retry-emails";
import { sweepDeliveries } from "./jobs/sweep-deliveries";
import { systemContext } from "./lib/context";

export { RateLimiter } from "../durable-objects/rate-limiter";
export { BulkBatch } from "./jobs/bulk-batch";

export default {
  fetch: app.fetch,

  async queue(batch: MessageBatch<OutboxMessage>, env: Env, ctx: ExecutionContext): Promise<void> {
    await dispatchEvents(systemContext(env, (p) => ctx.waitUntil(p)), batch);
  },

  async scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    const services = systemContext(env, (p) => ctx.waitUntil(p));
    const now = new Date(controller.scheduledTime);
    if (controller.cron === INTEGRITY_SWEEP_CRON) {
      await startIntegritySweep(services, now);
      return;
    }
    // Independent jobs: one failing must not starve the others for that minute.
    const jobs: [string, () => Promise<unknown>][] = [
      ["expire-envelopes", () => expireEnvelopes(services, now)],
      ["expire-transfers", () => expireTransfers(services, now)],
      ["send-reminders", () => sendReminders(services, now)],
      ["relay-outbox", () => relayOutbox(services, now)],
      ["sweep-deliveries", () => sweepDeliveries(services, now)],
      ["integrity-sweep", () => continueIntegritySweep(services, now)],
      ["retry-emails", () => retryEmails(services, now)],
      ["prune-webhook-attempts", () => pruneWebhookAttempts(services, now)],
      ["resume-bulk-batches", () => resumeBulkBatches(services, now)],
      ["auto-vault-sweep", () => autoVaultSweep(services, now)],
      ["renew-evidence-records", () => renewEvidenceRecords(services, now)],
      ["raise-evidence", () => raiseEvidenceJob(services, now)],
    ];
    const results = await Promise.allSettled(jobs.map(([, run]) => run()));
    const failed = results.flatMap((r, i) => (r.status === "rejected" ? [`${jobs[i]![0]}: ${String(r.reason)}`] : []));
    if (failed.length > 0) {
      console.error(JSON.stringify({ level: "error", cron: controller.cron, failed }));
      throw new Error(`scheduled jobs failed: ${failed.join("; ")}`);
    }
  },
} satisfies ExportedHandler<Env, OutboxMessage>;
