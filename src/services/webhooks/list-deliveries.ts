import type { OrgContext } from "../../lib/context";
import type { DeliveryStatus } from "../../db/schema";
import { deliveryView, getEndpoint, listEndpointDeliveries } from "./repository";

/** An endpoint's delivery log, newest first; deleted endpoints keep theirs. */
export async function listDeliveries(
  ctx: OrgContext,
  input: { endpointId: string; status?: DeliveryStatus; page: number; limit: number },
) {
  const db = ctx.db;
  const endpoint = await getEndpoint(db, ctx.orgId, input.endpointId, { includeDeleted: true });
  const { rows, total } = await listEndpointDeliveries(db, {
    endpointId: endpoint.id,
    orgId: ctx.orgId,
    status: input.status,
    limit: input.limit,
    offset: (input.page - 1) * input.limit,
  });
  return { rows: rows.map(deliveryView), total };
}
