import type { Locale } from "../../db/schema/locales";
import { onShard, onShardOf, type OrgContext } from "../../lib/context";
import { conflict, unprocessable } from "../../lib/errors";
import { smsProvider } from "../../providers/sms";
import { newShardId, type ShardDb } from "../../lib/shards";
import { nowIso } from "../../lib/time";
import { getUserEmailNormalized } from "../organizations/repository";
import { orgShardSet } from "../shards/repository";
import { commitWithBatchAudit } from "./batch-chain";
import { batchItemsDelete, batchItemsInsert, batchItemsReset, getBatch } from "./repository";
import { customerCopiesInsert, listCustomerContactsByIds, listCustomersByEmails, listCustomerRowsByIds, type CustomerContact, type CustomerCopy } from "../customers/repository";
import type { SetItemsInput } from "./schema";
import { assertEditable } from "./serialize";

/**
 * The organization's customers among `ids` as the batch's shard will hold them (docs/decisions/shards.md
 * 2): those already on it, then those found on the organization's other shards (newest shard first),
 * to be copied onto it with the same id in the batch that sets the items. A copy whose email already
 * belongs to another customer of the organization on the batch's shard resolves to that customer
 * (one customer per address per organization and shard), as an envelope create would.
 */
async function customersById(ctx: OrgContext, db: ShardDb, ids: string[]): Promise<{ byId: Map<string, CustomerContact>; copies: CustomerCopy[] }> {
  const { orgId } = ctx;
  const byId = new Map((await listCustomerContactsByIds(db, orgId, ids)).map((c) => [c.id, c]));
  const copies: CustomerCopy[] = [];
  let missing = ids.filter((id) => !byId.has(id));
  if (missing.length === 0) return { byId, copies };
  const others = (await orgShardSet(ctx.global, orgId)).filter((n) => n !== ctx.shardId).reverse();
  for (const n of others) {
    if (missing.length === 0) break;
    const found = await listCustomerRowsByIds(onShard(ctx, n).db, orgId, missing);
    if (found.length === 0) continue;
    const taken = await listCustomersByEmails(db, orgId, found.flatMap((c) => (c.email_normalized ? [c.email_normalized] : [])));
    for (const c of found) {
      const local = c.email_normalized ? taken.get(c.email_normalized) : undefined;
      if (local) {
        byId.set(c.id, local);
      } else {
        copies.push(c);
        byId.set(c.id, { id: c.id, name: c.name, email: c.email, primary_contact_name: c.primary_contact_name });
      }
    }
    missing = missing.filter((id) => !byId.has(id));
  }
  return { byId, copies };
}

/** One client of the request, whichever form the partner used. */
type ItemSpec = { customerId: string; locale: Locale | null; phone: string | null };

/**
 * The request's clients in one form: `items` as given, or `customer_ids` with the `locales` and
 * (deprecated) `phones` maps read per id; a phone is the number an `sms_otp` signer's code goes to.
 */
function itemSpecs(input: SetItemsInput): { specs: ItemSpec[]; field: "items" | "customer_ids" } {
  if (input.items) {
    return { field: "items", specs: input.items.map((i) => ({ customerId: i.customer_id, locale: i.locale ?? null, phone: i.auth === "sms_otp" ? (i.phone ?? null) : null })) };
  }
  const ids = input.customer_ids ?? [];
  return { field: "customer_ids", specs: ids.map((id) => ({ customerId: id, locale: input.locales?.[id] ?? null, phone: input.phones?.[id] ?? null })) };
}

/**
 * POST /bulk-send/:id/items: replaces the client list (1 to 1,000 clients, as `customer_ids` or
 * `items`; a repeated id is 422). Ids that are not customers of the organization are `rejected` and not
 * added; a client without an email, or whose email is the sender's own, is kept as `skipped` and listed
 * in `skipped_no_email`. Each item reserves the id its envelope will have (exactly once per client, see
 * run-chunk.ts). The batch becomes `ready` once it has a client. A client whose signer verifies by text
 * (`auth: "sms_otp"`) needs an SMS provider: without one the request is refused now, as a single send
 * would be, rather than each envelope failing when the batch runs.
 */
export async function setBatchItems(ctx: OrgContext, input: { batchId: string } & SetItemsInput) {
  // the batch's shard, named by its id
  ctx = onShardOf(ctx, input.batchId);
  const { db, orgId } = ctx;
  const batch = await getBatch(db, orgId, input.batchId);
  assertEditable(batch, "change the clients of");
  const { specs, field } = itemSpecs(input);
  const seen = new Map<string, number>();
  const repeats = specs.flatMap(({ customerId: id }, i) => {
    const path = field === "items" ? [field, i, "customer_id"] : [field, i];
    if (seen.has(id)) return [{ code: "invalid_value", expected: "each customer id once", received: id, path, message: `${id} is already ${field}[${seen.get(id)}]` }];
    seen.set(id, i);
    return [];
  });
  if (repeats.length) throw unprocessable(`${field} repeats a customer id`, repeats);
  // 503 naming SMS_PROVIDER now (the single send's refusal), never a batch of envelopes that cannot open
  if (specs.some((s) => s.phone)) smsProvider(ctx.env);
  const ids = specs.map((s) => s.customerId);

  const [{ byId: customers, copies }, sender] = await Promise.all([
    customersById(ctx, db, ids),
    getUserEmailNormalized(ctx.global, batch.created_by),
  ]);
  const rejected = ids.filter((id) => !customers.has(id));
  const at = nowIso();
  const kept = specs.filter((s) => customers.has(s.customerId)).map(({ customerId, locale, phone }, position) => {
    // the customer the id resolves to on the batch's shard (another id when its copy's email is taken there)
    const c = customers.get(customerId)!;
    const email = c.email?.trim() || null;
    const skipped = !email || email.toLowerCase() === sender?.email;
    // the item, and the envelope it reserves, on the batch's shard
    return { id: newShardId("bulkItem", ctx.shardId), position, customer: c, email, locale, phone, status: skipped ? ("skipped" as const) : ("pending" as const), envelopeKey: newShardId("envelope", ctx.shardId) };
  });
  const skipped = kept.filter((k) => k.status === "skipped");

  // every row in one statement, whatever their number (see batchItemsInsert)
  const rows = kept.map((r) => ({ id: r.id, position: r.position, customer_id: r.customer.id, customer_name: r.customer.name, email: r.email, locale: r.locale, phone: r.phone, status: r.status, envelope_key: r.envelopeKey }));
  const insert = batchItemsInsert(db, { batchId: batch.id, orgId, rows, at });
  const [guard] = await commitWithBatchAudit(
    db,
    { orgId, batchId: batch.id, action: "bulk_batch.items_set", actor: ctx.actor, data: { batch_id: batch.id, added: kept.length, skipped: skipped.length, rejected: rejected.length }, at },
    [
      batchItemsReset(db, batch.id, { status: kept.length > 0 ? "ready" : "draft", total: kept.length, skipped: skipped.length }, at),
      batchItemsDelete(db, batch.id),
      // customers found on the organization's other shards, copied with their ids before the items that reference them
      ...(copies.length > 0 ? [customerCopiesInsert(db, copies)] : []),
      ...(rows.length > 0 ? [insert] : []),
    ],
    { guarded: true },
  );
  if (guard?.meta.changes !== 1) throw conflict("The batch is no longer draft or ready: its clients cannot change", { batch_id: batch.id });
  return { added: kept.length, skipped_no_email: skipped.map((s) => s.customer.id), rejected };
}
