import type { OrgContext } from "../../lib/context";
import type { DeliveryStatus } from "../../db/schema";
import { deliveryView, getEndpoint, type DeliveryRow } from "./repository";

/** An endpoint's delivery log, newest first; deleted endpoints keep theirs. */
export async function listDeliveries(
  ctx: OrgContext,
  input: { endpointId: string; status?: DeliveryStatus; page: number; limit: number },
) {
  const db = ctx.db;
  const endpoint = await getEndpoint(db, ctx.orgId, input.endpointId, { includeDeleted: true });
  const where = input.status ? "endpoint_id = ? AND org_id = ? AND status = ?" : "endpoint_id = ? AND org_id = ?";
  const params = input.status ? [endpoint.id, ctx.orgId, input.status] : [endpoint.id, ctx.orgId];
  const [rows, count] = await db.batch<DeliveryRow | { total: number }>([
    db
      .prepare(`SELECT * FROM webhook_deliveries WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
      .bind(...params, input.limit, (input.page - 1) * input.limit),
    db.prepare(`SELECT COUNT(*) AS total FROM webhook_deliveries WHERE ${where}`).bind(...params),
  ]);
  return {
    rows: ((rows?.results ?? []) as DeliveryRow[]).map(deliveryView),
    total: (count?.results[0] as { total: number } | undefined)?.total ?? 0,
  };
}
