import type { OrgContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { outboxInsert } from "../events/outbox";
import { attemptClaimed, claimUntil, type DeliverOptions } from "./deliver";
import { getEndpoint } from "./repository";

/**
 * POST /webhooks/endpoints/:id/test: one signed `webhook.test` event to this endpoint only, sent
 * while the caller waits. The event is born dispatched (fan-out never sees it) and its delivery is
 * born claimed (the sweep leaves it alone) with a single attempt: a failed test is not retried for
 * hours. It shows in the delivery log like any other delivery. The reply says whether the endpoint
 * answered 2xx, never what it answered (the URL rules are not a licence to read other servers).
 */
export async function sendTestEvent(ctx: OrgContext, input: { endpointId: string } & DeliverOptions) {
  const db = ctx.db;
  const endpoint = await getEndpoint(db, ctx.orgId, input.endpointId);
  if (endpoint.is_active !== 1) throw conflict("The endpoint is disabled; enable it before sending a test event");
  const now = input.now ?? new Date();
  const at = now.toISOString();
  const event = outboxInsert(db, {
    orgId: ctx.orgId,
    envelopeId: null,
    type: "webhook.test",
    data: { endpoint_id: endpoint.id, message: "A test event from POST /webhooks/endpoints/:endpoint_id/test" },
    at,
  });
  const deliveryId = newId("webhookDelivery");
  await db.batch([
    event.statement,
    db.prepare("UPDATE events SET dispatched_at = ? WHERE id = ?").bind(at, event.id),
    db
      .prepare(
        `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'webhook.test', 'pending', 0, 1, ?, ?, ?)`,
      )
      .bind(deliveryId, ctx.orgId, endpoint.id, event.id, claimUntil(now), at, at),
  ]);
  const result = await attemptClaimed(ctx, { ...input, deliveryId, now });
  return {
    delivery_id: deliveryId,
    event_id: event.id,
    success: result?.succeeded ?? false,
    response_code: result?.responseStatus ?? null,
    duration_ms: result?.durationMs ?? 0,
    error: result ? result.error : "endpoint disabled",
  };
}
