import type { RequestContext } from "../lib/context";
import { pruneSettledAttempts } from "../services/webhooks/repository";

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
  const cutoff = new Date(now.getTime() - ATTEMPT_RETENTION_DAYS * 86_400_000).toISOString();
  const result = await pruneSettledAttempts(ctx.db, { cutoff, limit: BATCH });
  return { deleted: result.meta.changes ?? 0, rowsRead: result.meta.rows_read ?? 0 };
}
