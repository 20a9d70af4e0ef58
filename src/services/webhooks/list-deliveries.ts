import type { OrgContext } from "../../lib/context";
import type { DeliveryStatus } from "../../db/schema";
import { listAcrossShards } from "../shards/fan-out";
import { orgShardSet } from "../shards/repository";
import { deliveryView, getEndpoint, listEndpointDeliveries } from "./repository";

/**
 * An endpoint's delivery log, newest first; deleted endpoints keep theirs. The endpoint is global, its
 * deliveries on every shard of the organization: the pages are merged (shards/fan-out.ts).
 */
export async function listDeliveries(
  ctx: OrgContext,
  input: { endpointId: string; status?: DeliveryStatus; page: number; limit: number },
) {
  const [endpoint, shards] = await Promise.all([
    getEndpoint(ctx.global, ctx.orgId, input.endpointId, { includeDeleted: true }),
    orgShardSet(ctx.global, ctx.orgId),
  ]);
  const { rows, total } = await listAcrossShards(ctx, shards, { limit: input.limit, offset: (input.page - 1) * input.limit }, (shard, window) =>
    listEndpointDeliveries(shard.db, { endpointId: endpoint.id, orgId: ctx.orgId, status: input.status, ...window }),
  );
  return { rows: rows.map(deliveryView), total };
}
