import type { OrgContext } from "../../lib/context";
import { eventPayloadSelect } from "../events/repository";
import { webhookPayload } from "./deliver";
import { deliveryAttemptsSelect, deliveryView, getDelivery, type AttemptRow } from "./repository";

/** One delivery with the payload it sends and every attempt made so far. */
export async function getDeliveryDetail(ctx: OrgContext, input: { deliveryId: string }) {
  const { db, orgId } = ctx;
  const row = await getDelivery(db, orgId, input.deliveryId);
  const [event, attempts] = await db.batch([
    eventPayloadSelect(db, orgId, row.event_id),
    deliveryAttemptsSelect(db, row.id),
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
