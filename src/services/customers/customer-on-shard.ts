import { onShard, type OrgContext } from "../../lib/context";
import { newShardId, shardDb } from "../../lib/shards";
import { customerCopiesInsert, customerInsertIfAbsent, findCustomerByEmail } from "./repository";

/**
 * The statement that puts the customer of a create on the create's shard (`ctx.db`), for its batch,
 * before the row that references it (docs/decisions/shards.md 2: a customer is one id on every shard of
 * its organization). On an organization with one shard (the usual case) that is the insert-if-absent
 * on (org, email) with a new id tagged with the shard, and no read. Otherwise every shard of `shards` is
 * read at once: the create's shard having the customer needs nothing; else the row of the newest other
 * shard that has it (highest number first: shards are added over time) is copied with its id; only when
 * none has it is a new id made.
 */
export async function customerOnShard(
  ctx: OrgContext,
  input: { shards: readonly number[]; name: string; email: string; emailNormalized: string; at: string },
): Promise<D1PreparedStatement[]> {
  const fresh = () =>
    customerInsertIfAbsent(ctx.db, {
      id: newShardId("customer", ctx.shardId),
      org_id: ctx.orgId,
      name: input.name,
      email: input.email,
      email_normalized: input.emailNormalized,
      at: input.at,
    });
  // an unbound shard in the set (a deployment that dropped a binding) holds nothing this request can read
  const others = input.shards.filter((n) => n !== ctx.shardId && shardDb(ctx.env, n) !== null).sort((a, b) => b - a);
  if (others.length === 0) return [fresh()];
  const [here, ...elsewhere] = await Promise.all(
    [ctx.shardId, ...others].map((n) => findCustomerByEmail(onShard(ctx, n).db, ctx.orgId, input.emailNormalized)),
  );
  if (here) return [];
  const found = elsewhere.find((row) => row !== null);
  return [found ? customerCopiesInsert(ctx.db, [found]) : fresh()];
}
