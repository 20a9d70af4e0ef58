import type { OrgContext } from "../../lib/context";
import { webhookPayload } from "./deliver";
import { deliveryView, getDelivery } from "./repository";

export type AttemptRow = {
  attempt: number;
  attempted_at: string;
  succeeded: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  next_attempt_at: string | null;
};

/** One delivery with the payload it sends and every attempt made so far. */
export async function getDeliveryDetail(ctx: OrgContext, input: { deliveryId: string }) {
  const { db, orgId } = ctx;
  const row = await getDelivery(db, orgId, input.deliveryId);
  const [event, attempts] = await db.batch([
    db.prepare("SELECT id, org_id, type, envelope_id, data, created_at FROM events WHERE id = ? AND org_id = ?").bind(row.event_id, orgId),
    db.prepare("SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt, id").bind(row.id),
  ]);
  return {
    ...deliveryView(row),
    payload: webhookPayload(event!.results[0] as Parameters<typeof webhookPayload>[0]),
    attempt_log: (attempts!.results as AttemptRow[]).map((a) => ({
      attempt: a.attempt,
      attempted_at: a.attempted_at,
      succeeded: a.succeeded === 1,
      response_code: a.response_status,
      response_body: a.response_body,
      error: a.error,
      duration_ms: a.duration_ms,
      next_retry_at: a.next_attempt_at,
    })),
  };
}
