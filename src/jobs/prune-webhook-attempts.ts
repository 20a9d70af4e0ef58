import type { RequestContext } from "../lib/context";

/** How long the per-attempt log is kept (Svix keeps 90 days on its top plan, DocuSign Connect 15). */
export const ATTEMPT_RETENTION_DAYS = 30;
const BATCH = 1000;

/**
 * Every minute: deletes HTTP attempt rows older than 30 days whose delivery is settled (`succeeded` or
 * `failed`), at most 1,000 a run, oldest first. The delivery row stays, with its status, attempt count
 * and the latest answer, so the delivery log keeps every event a partner was sent and redeliver still
 * works; only the old per-attempt detail goes. Attempt ids grow with time, so scanning in id order
 * stops at the first young row's neighbourhood instead of reading the whole table.
 */
export async function pruneWebhookAttempts(ctx: RequestContext, now: Date): Promise<{ deleted: number }> {
  const env = ctx.env;
  const cutoff = new Date(now.getTime() - ATTEMPT_RETENTION_DAYS * 86_400_000).toISOString();
  const result = await env.DB.prepare(
    `DELETE FROM webhook_attempts WHERE id IN (
       SELECT a.id FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE a.attempted_at < ? AND d.status IN ('succeeded', 'failed')
       ORDER BY a.id LIMIT ${BATCH})`,
  )
    .bind(cutoff)
    .run();
  return { deleted: result.meta.changes ?? 0 };
}
