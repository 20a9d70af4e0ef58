import { onShard, type RequestContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { newShardId } from "../../lib/shards";
import { nowIso } from "../../lib/time";
import { auditInsert, GENESIS_HASH } from "../audit/chain";
import { normalizeEmail } from "../compose/create-envelope";
import { customerInsert, findCustomerIdByEmail } from "../customers/repository";
import { onEveryShard } from "../shards/fan-out";
import { currentShardOf, orgAnchorInsert, orgShardSet } from "../shards/repository";
import { assertOrgExists } from "./orgs";

/**
 * Creates a customer on the organization's current shard (docs/decisions/shards.md 1), its id tagged
 * with that shard. Its `customer.created` entry opens the customer's own chain (chain_id = the
 * customer id) in the same shard batch: an entry lives with the record it records. An email already
 * used by a customer on any shard of the organization is 409 with that customer's id (a customer is
 * one id on every shard of its organization).
 */
export async function createCustomer(
  ctx: RequestContext,
  input: { orgId: string; name: string; email?: string; primaryContactName?: string },
) {
  await assertOrgExists(ctx.global, input.orgId);
  const email = input.email ? normalizeEmail(input.email) : null;
  const [shard, shards] = await Promise.all([currentShardOf(ctx.global, input.orgId), email ? orgShardSet(ctx.global, input.orgId) : Promise.resolve([])]);
  if (email) {
    const found = await onEveryShard(ctx, shards, (s) => findCustomerIdByEmail(s.db, input.orgId, email));
    const existing = found.find((row) => row !== null);
    if (existing) throw conflict("A customer with this email already exists in the organization", { customer_id: existing.id });
  }
  const { db, shardId } = onShard(ctx, shard);
  const customerId = newShardId("customer", shardId);
  const at = nowIso();
  const audit = await auditInsert(db, {
    orgId: input.orgId,
    chainId: customerId,
    head: { seq: 0, hash: GENESIS_HASH },
    action: "customer.created",
    actor: ctx.actor,
    data: { customer_id: customerId },
    at,
  });
  await db.batch([
    orgAnchorInsert(db, input.orgId, at),
    customerInsert(db, {
      id: customerId,
      org_id: input.orgId,
      name: input.name,
      email: input.email?.trim() ?? null,
      email_normalized: email,
      primary_contact_name: input.primaryContactName ?? null,
      at,
    }),
    audit.statement,
  ]);
  return { customer_id: customerId, name: input.name, email: input.email?.trim() ?? null, primary_contact_name: input.primaryContactName ?? null, created_at: at };
}
