import type { RequestContext } from "../lib/context";

const BATCH = 100;
/** Events younger than this are left to the fast path that enqueued them at commit. */
const GRACE_MS = 30_000;

/**
 * The safety net of the transactional outbox: any event not yet dispatched a while after it was
 * written is put on the webhook queue again. The queue consumer is idempotent per event, so a
 * duplicate from this relay costs nothing.
 */
export async function relayOutbox(ctx: RequestContext, now = new Date()): Promise<{ relayed: number }> {
  const env = ctx.env;
  const cutoff = new Date(now.getTime() - GRACE_MS).toISOString();
  const { results } = await env.DB.prepare(
    "SELECT id FROM events WHERE dispatched_at IS NULL AND created_at <= ? ORDER BY created_at LIMIT ?",
  )
    .bind(cutoff, BATCH)
    .all<{ id: string }>();
  if (results.length > 0) {
    await env.WEBHOOK_QUEUE.sendBatch(results.map((r) => ({ body: { kind: "event" as const, event_id: r.id } })));
  }
  return { relayed: results.length };
}
