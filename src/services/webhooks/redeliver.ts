import type { OrgContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { newShardId } from "../../lib/shards";
import { deliveryView, getDelivery, getEndpoint, redeliveryInsert } from "./repository";
import { MAX_ATTEMPTS } from "./retry-schedule";

/**
 * Replays a delivery (spec 4.10): a new delivery row linked by `redelivery_of`, for the same event
 * (so the same `event_id` and payload) and endpoint, due at once and sent by the next sweep with the
 * full retry schedule. Replays of a disabled or deleted endpoint are refused: they would fail at once.
 * No audit entry: a replay changes no configuration (the row itself records it), and an operator
 * replaying a backlog must not queue up on the organization's audit chain.
 */
export async function redeliver(ctx: OrgContext, input: { deliveryId: string }) {
  // the delivery's shard (record-shard routes the request by its id); the endpoint is global
  const db = ctx.db;
  const original = await getDelivery(db, ctx.orgId, input.deliveryId);
  const endpoint = await getEndpoint(ctx.global, ctx.orgId, original.endpoint_id, { includeDeleted: true });
  if (endpoint.deleted_at) throw conflict("The endpoint of this delivery was deleted; its deliveries cannot be replayed");
  if (endpoint.is_active !== 1) throw conflict("The endpoint is disabled; enable it before redelivering");
  const id = newShardId("webhookDelivery", ctx.shardId);
  const at = nowIso();
  await redeliveryInsert(db, { id, orgId: ctx.orgId, original, maxAttempts: MAX_ATTEMPTS, at }).run();
  return deliveryView(await getDelivery(db, ctx.orgId, id));
}
