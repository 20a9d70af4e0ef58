import type { OrgContext } from "../../lib/context";
import { conflict, unprocessable } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { assertEditable, getBatch } from "./repository";

type CustomerRow = { id: string; name: string; email: string | null; primary_contact_name: string | null };

/**
 * The organization's customers among `ids`, in one statement: the ids travel as one JSON array
 * (json_each), so a list of 1,000 is neither 1,000 bound values (D1 binds at most 100) nor a dozen
 * chunked queries counted against the invocation's statement budget.
 */
async function customersById(db: D1Database, orgId: string, ids: string[]): Promise<Map<string, CustomerRow>> {
  const { results } = await db
    .prepare("SELECT id, name, email, primary_contact_name FROM customers WHERE org_id = ? AND id IN (SELECT value FROM json_each(?))")
    .bind(orgId, JSON.stringify(ids))
    .all<CustomerRow>();
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
    db.prepare("SELECT lower(trim(email)) AS email FROM users WHERE id = ?").bind(batch.created_by).first<{ email: string }>(),
  ]);
  const rejected = ids.filter((id) => !customers.has(id));
  const at = nowIso();
  const kept = ids.filter((id) => customers.has(id)).map((id, position) => {
    const c = customers.get(id)!;
    const email = c.email?.trim() || null;
    const skipped = !email || email.toLowerCase() === sender?.email;
    return { id: newId("bulkItem"), position, customer: c, email, status: skipped ? "skipped" : "pending", envelopeKey: newId("envelope") };
  });
  const skipped = kept.filter((k) => k.status === "skipped");

  const editable = "(SELECT status FROM bulk_batches WHERE id = ?) IN ('draft', 'ready')";
  // One statement for every row, whatever their number: D1 runs at most 1,000 statements per invocation
  // (one INSERT per client made 1,000 clients ~1,020), binds at most 100 values per statement and allows
  // few terms in a compound SELECT, so the rows travel as one JSON array and json_each unfolds them.
  const rows = kept.map((r) => ({ id: r.id, position: r.position, customer_id: r.customer.id, customer_name: r.customer.name, email: r.email, status: r.status, envelope_key: r.envelopeKey }));
  const insert = db
    .prepare(
      `INSERT INTO bulk_items (id, batch_id, org_id, position, customer_id, customer_name, email, status, envelope_key, attempts, created_at, updated_at)
       SELECT json_extract(value, '$.id'), ?, ?, json_extract(value, '$.position'), json_extract(value, '$.customer_id'), json_extract(value, '$.customer_name'),
              json_extract(value, '$.email'), json_extract(value, '$.status'), json_extract(value, '$.envelope_key'), 0, ?, ?
       FROM json_each(?) WHERE ${editable}`,
    )
    .bind(batch.id, orgId, at, at, JSON.stringify(rows), batch.id);
  const [guard] = await commitWithOrgAudit(
    db,
    { orgId, action: "bulk_batch.items_set", actor: ctx.actor, data: { batch_id: batch.id, added: kept.length, skipped: skipped.length, rejected: rejected.length }, at },
    [
      db
        .prepare(
          `UPDATE bulk_batches SET status = ?, total_count = ?, skipped_count = ?, running_count = 0, sent_count = 0, failed_count = 0, cancelled_count = 0, updated_at = ?
           WHERE id = ? AND status IN ('draft', 'ready') AND deleted_at IS NULL`,
        )
        .bind(kept.length > 0 ? "ready" : "draft", kept.length, skipped.length, at, batch.id),
      db.prepare(`DELETE FROM bulk_items WHERE batch_id = ? AND ${editable}`).bind(batch.id, batch.id),
      ...(rows.length > 0 ? [insert] : []),
    ],
    { guarded: true },
  );
  if (guard?.meta.changes !== 1) throw conflict("The batch is no longer draft or ready: its clients cannot change", { batch_id: batch.id });
  return { added: kept.length, skipped_no_email: skipped.map((s) => s.customer.id), rejected };
}
