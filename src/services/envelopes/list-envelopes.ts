import type { OrgContext } from "../../lib/context";
import type { EnvelopeStatus } from "../../db/schema";
import { listAcrossShards } from "../shards/fan-out";
import { orgShardSet } from "../shards/repository";
import { listEnvelopesPage } from "./repository";

export type ListEnvelopesInput = {
  page: number;
  limit: number;
  customerId?: string;
  status?: EnvelopeStatus;
};

/**
 * Newest first; `total` counts every envelope matching the filters. The organization's envelopes are on
 * every shard it was placed on (docs/decisions/shards.md 3): the same query runs on each shard of its
 * set and the pages merge (one shard, the usual case, is asked for exactly the page).
 */
export async function listEnvelopes(ctx: OrgContext, input: ListEnvelopesInput) {
  const shards = await orgShardSet(ctx.global, ctx.orgId);
  return listAcrossShards(ctx, shards, { limit: input.limit, offset: (input.page - 1) * input.limit }, (shard, window) =>
    listEnvelopesPage(shard.db, { orgId: ctx.orgId, customerId: input.customerId, status: input.status, ...window }),
  );
}
