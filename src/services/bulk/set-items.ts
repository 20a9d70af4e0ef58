import type { OrgContext } from "../../lib/context";
import { conflict, unprocessable } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { listCustomerContactsByIds, type CustomerContact } from "../customers/repository";
import { getUserEmailNormalized } from "../organizations/repository";
import { batchItemsDelete, batchItemsInsert, batchItemsReset, getBatch } from "./repository";
import { assertEditable } from "./serialize";

/** The organization's customers among `ids`, in one statement (see listCustomerContactsByIds). */
async function customersById(db: D1Database, orgId: string, ids: string[]): Promise<Map<string, CustomerContact>> {
  const results = await listCustomerContactsByIds(db, orgId, ids);
  return new Map(results.map((c) => [c.id, c]));
}

/**
 * POST /bulk-send/:id/items: replaces the client list (1 to 1,000 ids; a repeated id is 422). Ids that
 * are not customers of the organization are `rejected` and not added; a client without an email, or
 * whose email is the sender's own, is kept as `skipped` and listed in `skipped_no_email`. Each item
 * reserves the id its envelope will have (exactly once per client, see run-chunk.ts). The batch becomes
 * `ready` once it has a client.
 */
export async function setBatchItems(ctx: OrgContext, input: { batchId: string; customerIds: string[] }) {
  const { db, orgId } = ctx;
  const batch = await getBatch(db, orgId, input.batchId);
  assertEditable(batch, "change the clients of");
  const ids = input.customerIds;
  const seen = new Map<string, number>();
  const repeats = ids.flatMap((id, i) => {
    if (seen.has(id)) return [{ code: "invalid_value", expected: "each customer id once", received: id, path: ["customer_ids", i], message: `${id} is already customer_ids[${seen.get(id)}]` }];
    seen.set(id, i);
    return [];
  });
  if (repeats.length) throw unprocessable("customer_ids repeats an id", repeats);

  const [customers, sender] = await Promise.all([
    customersById(db, orgId, ids),
    getUserEmailNormalized(db, batch.created_by),
  ]);
  const rejected = ids.filter((id) => !customers.has(id));
  const at = nowIso();
  const kept = ids.filter((id) => customers.has(id)).map((id, position) => {
    const c = customers.get(id)!;
    const email = c.email?.trim() || null;
    const skipped = !email || email.toLowerCase() === sender?.email;
    return { id: newId("bulkItem"), position, customer: c, email, status: skipped ? ("skipped" as const) : ("pending" as const), envelopeKey: newId("envelope") };
  });
  const skipped = kept.filter((k) => k.status === "skipped");

  // every row in one statement, whatever their number (see batchItemsInsert)
  const rows = kept.map((r) => ({ id: r.id, position: r.position, customer_id: r.customer.id, customer_name: r.customer.name, email: r.email, status: r.status, envelope_key: r.envelopeKey }));
  const insert = batchItemsInsert(db, { batchId: batch.id, orgId, rows, at });
  const [guard] = await commitWithOrgAudit(
    db,
    { orgId, action: "bulk_batch.items_set", actor: ctx.actor, data: { batch_id: batch.id, added: kept.length, skipped: skipped.length, rejected: rejected.length }, at },
    [
      batchItemsReset(db, batch.id, { status: kept.length > 0 ? "ready" : "draft", total: kept.length, skipped: skipped.length }, at),
      batchItemsDelete(db, batch.id),
      ...(rows.length > 0 ? [insert] : []),
    ],
    { guarded: true },
  );
  if (guard?.meta.changes !== 1) throw conflict("The batch is no longer draft or ready: its clients cannot change", { batch_id: batch.id });
  return { added: kept.length, skipped_no_email: skipped.map((s) => s.customer.id), rejected };
}
