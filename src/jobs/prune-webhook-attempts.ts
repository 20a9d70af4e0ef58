import type { RequestContext } from "../lib/context";

/** How long the per-attempt log is kept (Svix keeps 90 days on its top plan, DocuSign Connect 15). */
export const ATTEMPT_RETENTION_DAYS = 30;
const BATCH = 1000;

/**
 * Every minute: deletes HTTP attempt rows older than 30 days whose delivery is settled (`succeeded` or
 * `failed`), at most 1,000 a run, oldest first. The delivery row stays, with its status, attempt count
 * and the latest answer, so the delivery log keeps every event a partner was sent and redeliver still
 * works; only the old per-attempt detail goes. The scan walks the `attempted_at` index, so a run with
 * nothing past retention reads no rows, however long the log.
 */
export async function pruneWebhookAttempts(ctx: RequestContext, now: Date): Promise<{ deleted: number; rowsRead: number }> {
  const env = ctx.env;
  const cutoff = new Date(now.getTime() - ATTEMPT_RETENTION_DAYS * 86_400_000).toISOString();
  const result = await env.DB.prepare(
    `DELETE FROM webhook_attempts WHERE id IN (
       SELECT a.id FROM webhook_attempts a INDEXED BY webhook_attempts_attempted_idx
       WHERE a.attempted_at < ?
         AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id AND d.status IN ('succeeded', 'failed'))
       ORDER BY a.attempted_at LIMIT ${BATCH})`,
  )
    .bind(cutoff)
    .run();
  return { deleted: result.meta.changes ?? 0, rowsRead: result.meta.rows_read ?? 0 };
}
