import type { OrgContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { deliveryView, getDelivery, getEndpoint } from "./repository";
import { MAX_ATTEMPTS } from "./retry-schedule";

/**
 * Replays a delivery (spec 4.10): a new delivery row linked by `redelivery_of`, for the same event
 * (so the same `event_id` and payload) and endpoint, due at once and sent by the next sweep with the
 * full retry schedule. Replays of a disabled or deleted endpoint are refused: they would fail at once.
 * No audit entry: a replay changes no configuration (the row itself records it), and an operator
 * replaying a backlog must not queue up on the organization's audit chain.
 */
export async function redeliver(ctx: OrgContext, input: { deliveryId: string }) {
  const db = ctx.db;
  const original = await getDelivery(db, ctx.orgId, input.deliveryId);
  const endpoint = await getEndpoint(db, ctx.orgId, original.endpoint_id, { includeDeleted: true });
  if (endpoint.deleted_at) throw conflict("The endpoint of this delivery was deleted; its deliveries cannot be replayed");
  if (endpoint.is_active !== 1) throw conflict("The endpoint is disabled; enable it before redelivering");
  const id = newId("webhookDelivery");
  const at = nowIso();
  await db
    .prepare(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, status, attempts, max_attempts, next_attempt_at, redelivery_of, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?)`,
    )
    .bind(id, ctx.orgId, original.endpoint_id, original.event_id, original.event_type, MAX_ATTEMPTS, at, original.id, at, at)
    .run();
  return deliveryView(await getDelivery(db, ctx.orgId, id));
}
