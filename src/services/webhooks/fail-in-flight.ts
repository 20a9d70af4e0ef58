import type { OrgContext } from "../../lib/context";
import { onEveryShard } from "../shards/fan-out";
import { orgShardSet } from "../shards/repository";
import { failInFlight } from "./repository";

/**
 * Stops an endpoint's in-flight deliveries (spec 6.4.4) on every shard of its organization, after the
 * global update that disabled or deleted it (docs/decisions/shards.md 4: global first). A crash between
 * the two leaves pending rows whose next attempt reads the endpoint from global, finds it gone and
 * fails them then (deliver.ts), so nothing is ever sent to it.
 */
export async function failInFlightEverywhere(ctx: OrgContext, endpointId: string, reason: string, at: string): Promise<void> {
  const shards = await orgShardSet(ctx.global, ctx.orgId);
  await onEveryShard(ctx, shards, (shard) => failInFlight(shard.db, endpointId, reason, at).run());
}
