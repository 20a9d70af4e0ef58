import type { RequestContext } from "../../lib/context";
import { notFound, unprocessable } from "../../lib/errors";
import { boundShards, shardDb } from "../../lib/shards";
import { envelopesOn, findShardState, organizationsPerShard, registeredShards, shardStateUpsert, type ShardState } from "./repository";

/**
 * The shard registry (docs/decisions/shards.md 3): the `shards` rows of the global
 * database, over the shards this deployment binds. A bound shard with no row is listed `closed` (a
 * shard just bound takes no organization until the operator opens it); a registered shard that is not
 * bound (a binding removed) is listed with its state but holds nothing this deployment can read, and
 * nothing is placed on it.
 */
export type { ShardState } from "./repository";
export type ShardSummary = { shard_id: number; state: ShardState; organizations: number; envelopes: number };

/** Every shard bound or registered, ascending, with its state and fill. */
export async function listShards({ env, global }: Pick<RequestContext, "env" | "global">): Promise<ShardSummary[]> {
  const [registered, orgs] = await Promise.all([registeredShards(global), organizationsPerShard(global)]);
  const bound = new Set(boundShards(env));
  const numbers = [...new Set([...bound, ...registered.keys()])].sort((a, b) => a - b);
  const envelopes = await Promise.all(numbers.map((n) => (bound.has(n) ? envelopesOn(shardDb(env, n)!) : Promise.resolve(0))));
  return numbers.map((n, i) => ({ shard_id: n, state: registered.get(n) ?? "closed", organizations: orgs.get(n) ?? 0, envelopes: envelopes[i]! }));
}

/** Opens or closes a bound shard, registering it on first use. An unbound shard is 404. */
export async function setShardState(ctx: Pick<RequestContext, "env" | "global">, input: { shard: number; state: ShardState; at: string }): Promise<ShardSummary> {
  const { env, global } = ctx;
  if (!shardDb(env, input.shard)) throw notFound("Shard");
  await shardStateUpsert(global, input).run();
  const summary = (await listShards(ctx)).find((s) => s.shard_id === input.shard);
  return summary!;
}

/**
 * The shard a new organization is placed on: the open bound shard with the fewest envelopes; ties go
 * to the one with fewer organizations, then to the lowest number (so new organizations alternate over
 * empty shards). None open: 422, the operator opens one first.
 */
export async function placementShard(ctx: Pick<RequestContext, "env" | "global">): Promise<number> {
  const bound = new Set(boundShards(ctx.env));
  const open = (await listShards(ctx)).filter((s) => s.state === "open" && bound.has(s.shard_id));
  open.sort((a, b) => a.envelopes - b.envelopes || a.organizations - b.organizations || a.shard_id - b.shard_id);
  const chosen = open[0];
  if (!chosen) throw unprocessable("No shard is open: open one with PATCH /operator/shards/{shard_id}");
  return chosen.shard_id;
}

/** A shard an organization may be placed on or move to: bound and registered open. Anything else is 422 at `path`. */
export async function assertOpenShard({ env, global }: Pick<RequestContext, "env" | "global">, shard: number, path: string[] = ["current_shard_id"]): Promise<void> {
  const row = shardDb(env, shard) ? await findShardState(global, shard) : null;
  if (row?.state !== "open") {
    throw unprocessable(`Shard ${shard} is not an open shard of this deployment`, [
      { code: "invalid_value", path, message: "must name an open shard (GET /operator/shards)" },
    ]);
  }
}
