import type { OrgContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { newShardId } from "../../lib/shards";
import { endpointAnchorInsert } from "../shards/repository";
import { outboxInsert } from "../events/outbox";
import { eventDispatchedUpdate } from "../events/repository";
import { attemptClaimed, claimUntil, type DeliverOptions } from "./deliver";
import { getEndpoint, testDeliveryInsert } from "./repository";

/**
 * POST /webhooks/endpoints/:id/test: one signed `webhook.test` event to this endpoint only, sent
 * while the caller waits. The event is born dispatched (fan-out never sees it) and its delivery is
 * born claimed (the sweep leaves it alone) with a single attempt: a failed test is not retried for
 * hours. It shows in the delivery log like any other delivery. The reply says whether the endpoint
 * answered 2xx, never what it answered (the URL rules are not a licence to read other servers).
 */
export async function sendTestEvent(ctx: OrgContext, input: { endpointId: string } & DeliverOptions) {
  // the endpoint is global; the event and its delivery go on the organization's current shard (ctx.db)
  const db = ctx.db;
  const endpoint = await getEndpoint(ctx.global, ctx.orgId, input.endpointId);
  if (endpoint.is_active !== 1) throw conflict("The endpoint is disabled; enable it before sending a test event");
  const now = input.now ?? new Date();
  const at = now.toISOString();
  const event = outboxInsert(db, {
    orgId: ctx.orgId,
    envelopeId: null,
    shard: ctx.shardId,
    type: "webhook.test",
    data: { endpoint_id: endpoint.id, message: "A test event from POST /webhooks/endpoints/:endpoint_id/test" },
    at,
  });
  const deliveryId = newShardId("webhookDelivery", ctx.shardId);
  await db.batch([
    endpointAnchorInsert(db, { id: endpoint.id, orgId: ctx.orgId }, at),
    event.statement,
    eventDispatchedUpdate(db, event.id, at),
    testDeliveryInsert(db, { id: deliveryId, orgId: ctx.orgId, endpointId: endpoint.id, eventId: event.id, claimUntil: claimUntil(now), at }),
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
