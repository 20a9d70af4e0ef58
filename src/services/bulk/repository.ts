import type { Row } from "../../db/row";
import type { bulkBatches, bulkItems, BulkItemStatus } from "../../db/schema";
import { notFound } from "../../lib/errors";
import type { ShardDb } from "../../lib/shards";

/**
 * Statements on `bulk_batches` and `bulk_items`, shard tables: a batch, its items, their reserved
 * envelopes and its master template all live on the batch's shard (`shardOf(batchId)`). Several come in pairs for one D1 batch: an item
 * change, then the batch's counters moved by `changes()`, the rows the statement just before changed
 * (D1 runs a batch's statements in order, in one transaction). Keep such pairs together and in order.
 */

export type BatchRow = Row<typeof bulkBatches>;
export type ItemRow = Row<typeof bulkItems>;

// ---- bulk_batches: reads ----

/** A batch of the organization that is not deleted; another organization's is not found (404). */
export async function getBatch(db: ShardDb, orgId: string, batchId: string): Promise<BatchRow> {
  const row = await db.prepare("SELECT * FROM bulk_batches WHERE id = ? AND org_id = ? AND deleted_at IS NULL").bind(batchId, orgId).first<BatchRow>();
  if (!row) throw notFound("Bulk-send batch");
  return row;
}

/** The batch as its workflow reads it (deleted or not), or null. */
export function findBatch(db: ShardDb, orgId: string, batchId: string): Promise<BatchRow | null> {
  return db.prepare("SELECT * FROM bulk_batches WHERE id = ? AND org_id = ?").bind(batchId, orgId).first<BatchRow>();
}

/** The organization of a batch that is not deleted, whatever the organization (the operator's view), or null. */
export function findBatchOrg(db: ShardDb, batchId: string): Promise<Pick<BatchRow, "org_id"> | null> {
  return db.prepare("SELECT org_id FROM bulk_batches WHERE id = ? AND deleted_at IS NULL").bind(batchId).first<Pick<BatchRow, "org_id">>();
}

/** Running (or cancelled, not yet settled) batches unchanged since `cutoff`, oldest first, at most `limit`. */
export async function listStaleBatches(db: ShardDb, cutoff: string, limit: number): Promise<Pick<BatchRow, "id" | "org_id">[]> {
  const { results } = await db
    .prepare(
      `SELECT id, org_id FROM bulk_batches
     WHERE status IN ('running', 'cancelled') AND finished_at IS NULL AND deleted_at IS NULL AND updated_at < ?
     ORDER BY updated_at LIMIT ${limit}`,
    )
    .bind(cutoff)
    .all<Pick<BatchRow, "id" | "org_id">>();
  return results;
}

// ---- bulk_batches: writes ----

export function batchInsert(
  db: ShardDb,
  b: Pick<
    BatchRow,
    | "id" | "org_id" | "name" | "document_source" | "source_template_id" | "source_package_id" | "kba_required" | "provider_instance"
    | "preserve_signing_order" | "add_me_as_signer" | "auto_vault_enabled" | "tag_ids" | "created_by" | "created_at" | "updated_at"
  >,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO bulk_batches (id, org_id, name, document_source, source_template_id, source_package_id, kba_required, provider_instance,
         preserve_signing_order, add_me_as_signer, auto_vault_enabled, tag_ids, status, created_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'draft', ?, ?, ?)`,
    )
    .bind(b.id, b.org_id, b.name, b.document_source, b.source_template_id, b.source_package_id, b.kba_required, b.provider_instance,
      b.preserve_signing_order, b.add_me_as_signer, b.auto_vault_enabled, b.tag_ids, b.created_by, b.created_at, b.updated_at);
}

/**
 * The UPDATE of a draft or ready batch: `sets` are [column, value] pairs in order (the columns are the
 * service's own names, never request input), then `updated_at`.
 */
export function batchUpdate(db: ShardDb, batchId: string, sets: [column: string, value: unknown][], at: string): D1PreparedStatement {
  return db
    .prepare(`UPDATE bulk_batches SET ${sets.map(([column]) => `${column} = ?`).join(", ")}, updated_at = ? WHERE id = ? AND status IN ('draft', 'ready') AND deleted_at IS NULL`)
    .bind(...sets.map(([, value]) => value), at, batchId);
}

/** Auto-vault on, the first acceptance kept (a second one keeps the first stamp); only while draft or ready. */
export function batchVaultConsentAccept(db: ShardDb, batchId: string, userId: string, at: string): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE bulk_batches SET auto_vault_enabled = 1, vault_terms_accepted_at = COALESCE(vault_terms_accepted_at, ?),
         vault_terms_accepted_by = COALESCE(vault_terms_accepted_by, ?), updated_at = ? WHERE id = ? AND status IN ('draft', 'ready')`,
    )
    .bind(at, userId, at, batchId);
}

/** Auto-vault off and its acceptance cleared; only while draft or ready. */
export function batchVaultConsentClear(db: ShardDb, batchId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE bulk_batches SET auto_vault_enabled = 0, vault_terms_accepted_at = NULL, vault_terms_accepted_by = NULL, updated_at = ? WHERE id = ? AND status IN ('draft', 'ready')").bind(at, batchId);
}

/** Records the batch's master template and the builder source it was made from; only while draft or ready. */
export function batchMasterSet(
  db: ShardDb,
  input: { batchId: string; templateId: string; source: string; kbaRequired: number; providerInstance: BatchRow["provider_instance"]; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE bulk_batches SET master_template_id = ?, master_source = ?, kba_required = ?, provider_instance = ?, updated_at = ?
           WHERE id = ? AND status IN ('draft', 'ready') AND deleted_at IS NULL`,
    )
    .bind(input.templateId, input.source, input.kbaRequired, input.providerInstance, input.at, input.batchId);
}

/** Soft delete, only while draft or ready. */
export function batchSoftDelete(db: ShardDb, batchId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE bulk_batches SET deleted_at = ?, updated_at = ? WHERE id = ? AND status IN ('draft', 'ready') AND deleted_at IS NULL").bind(at, at, batchId);
}

/** ready -> running. */
export function batchSubmit(db: ShardDb, batchId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE bulk_batches SET status = 'running', submitted_at = ?, updated_at = ? WHERE id = ? AND status = 'ready' AND deleted_at IS NULL").bind(at, at, batchId);
}

/** running -> ready again, only while nothing was sent: no workflow took the submitted batch. */
export function batchUnsubmit(db: ShardDb, batchId: string): D1PreparedStatement {
  return db.prepare("UPDATE bulk_batches SET status = 'ready', submitted_at = NULL WHERE id = ? AND status = 'running' AND running_count = 0 AND sent_count = 0 AND failed_count = 0").bind(batchId);
}

/**
 * running -> cancelled, in this order in one D1 batch: the batch's status (with its `pending` items
 * counted as cancelled), then those items, only once the batch is cancelled.
 */
export function batchCancel(db: ShardDb, batchId: string, at: string): D1PreparedStatement[] {
  return [
    db
      .prepare(
        `UPDATE bulk_batches SET status = 'cancelled', updated_at = ?2,
             cancelled_count = cancelled_count + (SELECT COUNT(*) FROM bulk_items WHERE batch_id = ?1 AND status = 'pending')
           WHERE id = ?1 AND status = 'running'`,
      )
      .bind(batchId, at),
    db.prepare("UPDATE bulk_items SET status = 'cancelled', updated_at = ? WHERE batch_id = ? AND status = 'pending' AND (SELECT status FROM bulk_batches WHERE id = ?) = 'cancelled'").bind(at, batchId, batchId),
  ];
}

/**
 * Every item settled (docs/decisions/bulk-send.md): `completed` when at least one envelope was
 * sent, `failed` when none could be (every client failed); a cancelled batch stays `cancelled`.
 */
export function batchFinish(db: ShardDb, batchId: string, at: string): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE bulk_batches SET status = CASE WHEN status = 'cancelled' THEN 'cancelled' WHEN sent_count = 0 AND failed_count > 0 THEN 'failed' ELSE 'completed' END,
             finished_at = ?, updated_at = ? WHERE id = ? AND status IN ('running', 'cancelled') AND finished_at IS NULL`,
    )
    .bind(at, at, batchId);
}

/** A running batch given up, with the reason (at most 500 characters). */
export function batchFail(db: ShardDb, batchId: string, reason: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE bulk_batches SET status = 'failed', error = ?, finished_at = ?, updated_at = ? WHERE id = ? AND status = 'running'").bind(reason.slice(0, 500), at, at, batchId);
}

// ---- bulk_items: reads ----

/** One page of the batch's items in list order, all or only those with `status`. */
export async function listItems(db: ShardDb, batchId: string, page: { status?: BulkItemStatus; limit: number; offset: number }): Promise<ItemRow[]> {
  const { results } = await db
    .prepare(`SELECT * FROM bulk_items WHERE batch_id = ? ${page.status ? "AND status = ?" : ""} ORDER BY position LIMIT ? OFFSET ?`)
    .bind(...(page.status ? [batchId, page.status] : [batchId]), page.limit, page.offset)
    .all<ItemRow>();
  return results;
}

export function countPendingItems(db: ShardDb, batchId: string): Promise<{ n: number } | null> {
  return db.prepare("SELECT COUNT(*) AS n FROM bulk_items WHERE batch_id = ? AND status = 'pending'").bind(batchId).first<{ n: number }>();
}

/** An item of a chunk with what the chunk reads beside it: its client and its envelope's status, if created. */
export type ChunkItemRow = ItemRow & { client_name: string | null; client_email: string | null; client_contact: string | null; envelope_status: string | null };

/**
 * For a batch: the next `limit` items of a chunk, `running` ones first (left by a crash), then
 * `pending` ones (unless `runningOnly`, for a cancelled batch), in list order, each with its client
 * and its envelope's status (rows of `ChunkItemRow`).
 */
export function selectChunkItems(db: ShardDb, batchId: string, input: { runningOnly: boolean; limit: number }): D1PreparedStatement {
  const statuses = input.runningOnly ? "('running')" : "('running', 'pending')";
  return db
    .prepare(
      `SELECT i.*, c.name AS client_name, c.email AS client_email, c.primary_contact_name AS client_contact, e.status AS envelope_status
         FROM bulk_items i LEFT JOIN customers c ON c.id = i.customer_id LEFT JOIN envelopes e ON e.id = i.envelope_key
         WHERE i.batch_id = ? AND i.status IN ${statuses} ORDER BY i.status = 'pending', i.position LIMIT ?`,
    )
    .bind(batchId, input.limit);
}

// ---- bulk_items: writes ----

/** The condition that keeps a batch's item list editable: the batch is still draft or ready (binds the batch id). */
const EDITABLE = "(SELECT status FROM bulk_batches WHERE id = ?) IN ('draft', 'ready')";

/** A new item list's counters (the batch back to `draft` or `ready`), only while draft or ready. */
export function batchItemsReset(db: ShardDb, batchId: string, counts: { status: "draft" | "ready"; total: number; skipped: number }, at: string): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE bulk_batches SET status = ?, total_count = ?, skipped_count = ?, running_count = 0, sent_count = 0, failed_count = 0, cancelled_count = 0, updated_at = ?
           WHERE id = ? AND status IN ('draft', 'ready') AND deleted_at IS NULL`,
    )
    .bind(counts.status, counts.total, counts.skipped, at, batchId);
}

/** The batch's items removed, only while the batch is editable. */
export function batchItemsDelete(db: ShardDb, batchId: string): D1PreparedStatement {
  return db.prepare(`DELETE FROM bulk_items WHERE batch_id = ? AND ${EDITABLE}`).bind(batchId, batchId);
}

/** The batch's new items, only while the batch is editable. */
export function batchItemsInsert(
  db: ShardDb,
  input: { batchId: string; orgId: string; rows: Pick<ItemRow, "id" | "position" | "customer_id" | "customer_name" | "email" | "locale" | "phone" | "status" | "envelope_key">[]; at: string },
): D1PreparedStatement {
  // One statement for every row, whatever their number: D1 runs at most 1,000 statements per invocation
  // (one INSERT per client made 1,000 clients ~1,020), binds at most 100 values per statement and allows
  // few terms in a compound SELECT, so the rows travel as one JSON array and json_each unfolds them.
  return db
    .prepare(
      `INSERT INTO bulk_items (id, batch_id, org_id, position, customer_id, customer_name, email, locale, phone, status, envelope_key, attempts, created_at, updated_at)
       SELECT json_extract(value, '$.id'), ?, ?, json_extract(value, '$.position'), json_extract(value, '$.customer_id'), json_extract(value, '$.customer_name'),
              json_extract(value, '$.email'), json_extract(value, '$.locale'), json_extract(value, '$.phone'), json_extract(value, '$.status'), json_extract(value, '$.envelope_key'), 0, ?, ?
       FROM json_each(?) WHERE ${EDITABLE}`,
    )
    .bind(input.batchId, input.orgId, input.at, input.at, JSON.stringify(input.rows), input.batchId);
}

/** The item's envelope, once created under its reserved id. */
export function itemEnvelopeSet(db: ShardDb, itemId: string, envelopeId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE bulk_items SET envelope_id = ?, updated_at = ? WHERE id = ?").bind(envelopeId, at, itemId);
}

/**
 * pending -> running for the given items (one JSON array), only while the batch runs, then the
 * batch's running counter: the first statement returns the ids it took.
 */
export function claimItems(db: ShardDb, batchId: string, itemIds: string[], at: string): [D1PreparedStatement, D1PreparedStatement] {
  return [
    db
      .prepare(
        `UPDATE bulk_items SET status = 'running', updated_at = ?1
         WHERE id IN (SELECT value FROM json_each(?2)) AND batch_id = ?3 AND status = 'pending' AND (SELECT status FROM bulk_batches WHERE id = ?3) = 'running'
         RETURNING id`,
      )
      .bind(at, JSON.stringify(itemIds), batchId),
    db.prepare("UPDATE bulk_batches SET running_count = running_count + changes(), updated_at = ?1 WHERE id = ?2").bind(at, batchId),
  ];
}

/** pending -> running for one item, only while the batch runs, then the running counter if it moved. */
export function claimItem(db: ShardDb, batchId: string, itemId: string, at: string): [D1PreparedStatement, D1PreparedStatement] {
  return [
    db.prepare("UPDATE bulk_items SET status = 'running', updated_at = ? WHERE id = ? AND status = 'pending' AND (SELECT status FROM bulk_batches WHERE id = ?) = 'running'").bind(at, itemId, batchId),
    db.prepare("UPDATE bulk_batches SET running_count = running_count + 1, updated_at = ? WHERE id = ? AND changes() = 1").bind(at, batchId),
  ];
}

/** A transient failure of a running item, recorded for a later attempt. */
export function itemRetryRecord(db: ShardDb, itemId: string, attempts: number, error: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE bulk_items SET attempts = ?, error = ?, updated_at = ? WHERE id = ? AND status = 'running'").bind(attempts, error, at, itemId);
}

/** running -> sent | failed for one item, then the batch's counters if it moved (a replay changes nothing). */
export function settleItem(
  db: ShardDb,
  batchId: string,
  item: Pick<ItemRow, "id" | "attempts">,
  outcome: { status: "sent" | "failed"; error: string | null },
  at: string,
): [D1PreparedStatement, D1PreparedStatement] {
  const counter = outcome.status === "sent" ? "sent_count" : "failed_count";
  return [
    db
      .prepare("UPDATE bulk_items SET status = ?, error = ?, attempts = ?, sent_at = ?, updated_at = ? WHERE id = ? AND status = 'running'")
      .bind(outcome.status, outcome.error, item.attempts, outcome.status === "sent" ? at : null, at, item.id),
    db.prepare(`UPDATE bulk_batches SET ${counter} = ${counter} + 1, running_count = running_count - 1, updated_at = ? WHERE id = ? AND changes() = 1`).bind(at, batchId),
  ];
}

/**
 * running -> sent for the given items (one JSON array) whose envelope has left `preparing` (read
 * inside the same transaction), then the batch's counters by as many.
 */
export function settleSentItems(db: ShardDb, batchId: string, itemIds: string[], at: string): [D1PreparedStatement, D1PreparedStatement] {
  return [
    db
      .prepare(
        `UPDATE bulk_items SET status = 'sent', error = NULL, sent_at = ?1, updated_at = ?1
             WHERE id IN (SELECT value FROM json_each(?2)) AND batch_id = ?3 AND status = 'running'
               AND (SELECT e.status FROM envelopes e WHERE e.id = bulk_items.envelope_key) NOT IN ('preparing')`,
      )
      .bind(at, JSON.stringify(itemIds), batchId),
    db.prepare("UPDATE bulk_batches SET sent_count = sent_count + changes(), running_count = running_count - changes(), updated_at = ?1 WHERE id = ?2").bind(at, batchId),
  ];
}

