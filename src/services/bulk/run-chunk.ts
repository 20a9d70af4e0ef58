import type { BulkHooks, ChunkOutcome } from "../../../durable-objects/bulk-batch";
import type { OrgContext, RequestContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { sendEnvelope } from "../envelopes/send-envelope";
import { findTemplate, listTemplateFields, type TemplateRow } from "../templates/repository";
import type { ResolvedField } from "../templates/schema";
import { createBulkEnvelope, type ClientData } from "./create-bulk-envelope";
import type { BatchRow, ItemRow } from "./repository";
import { masterRoles } from "./submit-batch";

/** Items per chunk (one alarm): small enough that a chunk ends in seconds, large enough to keep up 1,000 in well under a minute. */
export const CHUNK_SIZE = 50;
/** Items of a chunk in flight at once. */
const LANES = 8;
/** Attempts per item before it is `failed` (transient errors only; a 4xx of the send fails it at once). */
export const MAX_ITEM_ATTEMPTS = 3;

type Master = { template: TemplateRow; fields: ResolvedField[]; roles: string[] };
type Sender = { email: string; name: string };
type RunState = { ctx: OrgContext; batch: BatchRow; master: Master; sender: Sender; hooks: BulkHooks };

const isCrash = (err: unknown) => err instanceof Error && err.name === "InjectedCrash";

/**
 * One chunk of a batch's workflow, run by its Durable Object's alarm (durable-objects/bulk-batch.ts).
 * Every step is a guarded D1 write that a resumed chunk can find done, so a crash anywhere only
 * repeats work up to the last committed write:
 *   claim (pending -> running, only while the batch runs) -> envelope created under the item's
 *   reserved id with the item's envelope_id (one batch) -> sent (guarded by the envelope's audit
 *   sequence) -> item `sent` with its counters (guarded on `running`).
 * Items left `running` by a crash are picked up first, even after a cancel (they were claimed before it).
 */
export async function runBulkChunk(system: RequestContext, input: { batchId: string; orgId: string; hooks: BulkHooks }): Promise<ChunkOutcome> {
  const db = system.db;
  const batch = await db.prepare("SELECT * FROM bulk_batches WHERE id = ? AND org_id = ?").bind(input.batchId, input.orgId).first<BatchRow>();
  if (!batch || (batch.status !== "running" && batch.status !== "cancelled")) return "done";
  const statuses = batch.status === "running" ? "('running', 'pending')" : "('running')";
  const { results: items } = await db
    .prepare(`SELECT * FROM bulk_items WHERE batch_id = ? AND status IN ${statuses} ORDER BY status = 'pending', position LIMIT ?`)
    .bind(batch.id, CHUNK_SIZE)
    .all<ItemRow>();
  if (items.length === 0) {
    await finishBatch(system, batch);
    return "done";
  }
  const ctx: OrgContext = { ...system, orgId: batch.org_id, actor: { type: "user", id: batch.created_by } };
  const master = await loadMaster(ctx, batch);
  const sender = await db.prepare("SELECT email, name FROM users WHERE id = ?").bind(batch.created_by).first<Sender>();
  if (!sender) throw new Error(`the batch's sender ${batch.created_by} no longer exists`);
  const state: RunState = { ctx, batch, master, sender, hooks: input.hooks };

  let next = 0;
  let transient = false;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      if ((await processItem(state, item)) === "retry") transient = true;
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(LANES, items.length) }, lane));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
  return transient ? "backoff" : "more";
}

async function loadMaster(ctx: OrgContext, batch: BatchRow): Promise<Master> {
  const template = batch.master_template_id ? await findTemplate(ctx.db, batch.org_id, batch.master_template_id, { includeDeleted: true }) : null;
  if (!template || !template.document_key) throw new Error(`the batch's master template ${batch.master_template_id} is missing or has no document`);
  const [fields, roles] = await Promise.all([listTemplateFields(ctx.db, template.id), masterRoles(ctx.db, template.id)]);
  return { template, fields, roles };
}

/** The signers of spec 4.8's table: the client first (or at once with the sender), the sender as the second party. */
export function bulkSigners(batch: Pick<BatchRow, "preserve_signing_order" | "add_me_as_signer">, roles: string[], client: ClientData, sender: Sender) {
  const contact = client.primary_contact_name?.trim() || client.name;
  const signers = [{ role: roles[0]!, email: client.email, name: contact, routing_order: 1 }];
  if (batch.add_me_as_signer === 1) signers.push({ role: roles[1]!, email: sender.email, name: sender.name, routing_order: batch.preserve_signing_order === 1 ? 2 : 1 });
  return signers;
}

async function processItem(state: RunState, item: ItemRow): Promise<"done" | "retry"> {
  const { ctx, batch, hooks } = state;
  const db = ctx.db;
  if (item.status === "pending") {
    const at = nowIso();
    const [claim] = await db.batch([
      db.prepare("UPDATE bulk_items SET status = 'running', updated_at = ? WHERE id = ? AND status = 'pending' AND (SELECT status FROM bulk_batches WHERE id = ?) = 'running'").bind(at, item.id, batch.id),
      db.prepare("UPDATE bulk_batches SET running_count = running_count + 1, updated_at = ? WHERE id = ? AND changes() = 1").bind(at, batch.id),
    ]);
    if (claim?.meta.changes !== 1) return "done"; // cancelled meanwhile
    hooks.checkpoint("claimed");
  }
  try {
    const client = await db.prepare("SELECT name, email, primary_contact_name FROM customers WHERE id = ?").bind(item.customer_id).first<ClientData>();
    if (!client?.email) throw new ApiError(422, "The client no longer has an email address");
    let envelope = await db.prepare("SELECT status FROM envelopes WHERE id = ?").bind(item.envelope_key).first<{ status: string }>();
    if (!envelope) {
      hooks.checkpoint("before_create");
      await createBulkEnvelope(ctx, { batch, item, master: state.master.template, fields: state.master.fields, client });
      hooks.checkpoint("created");
      envelope = { status: "preparing" };
    }
    if (envelope.status === "preparing") {
      hooks.checkpoint("before_send");
      await sendEnvelope(ctx, { envelopeId: item.envelope_key, body: { send_email: true, signers: bulkSigners(batch, state.master.roles, client, state.sender) } });
      hooks.checkpoint("sent");
    }
    await settleItem(db, batch.id, item, { status: "sent", error: null });
    hooks.checkpoint("recorded");
    return "done";
  } catch (err) {
    if (isCrash(err)) throw err;
    // a send that lost a race with a resumed copy of itself: the envelope went out, which is what counts
    const now = await db.prepare("SELECT status FROM envelopes WHERE id = ?").bind(item.envelope_key).first<{ status: string }>();
    if (now && now.status !== "preparing") {
      await settleItem(db, batch.id, item, { status: "sent", error: null });
      return "done";
    }
    const message = err instanceof Error ? err.message : String(err);
    const attempts = item.attempts + 1;
    const permanent = err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 409;
    if (!permanent && attempts < MAX_ITEM_ATTEMPTS) {
      await db.prepare("UPDATE bulk_items SET attempts = ?, error = ?, updated_at = ? WHERE id = ? AND status = 'running'").bind(attempts, message, nowIso(), item.id).run();
      hooks.checkpoint("retry_recorded");
      return "retry";
    }
    // the envelope (if it was created) stays `preparing` under the client, to be sent by hand
    await settleItem(db, batch.id, { ...item, attempts }, { status: "failed", error: message });
    return "done";
  }
}

/** running -> sent | failed, with the batch's counters, in one guarded batch (a replay changes nothing). */
async function settleItem(db: D1Database, batchId: string, item: ItemRow, outcome: { status: "sent" | "failed"; error: string | null }) {
  const at = nowIso();
  const counter = outcome.status === "sent" ? "sent_count" : "failed_count";
  await db.batch([
    db
      .prepare("UPDATE bulk_items SET status = ?, error = ?, attempts = ?, sent_at = ?, updated_at = ? WHERE id = ? AND status = 'running'")
      .bind(outcome.status, outcome.error, item.attempts, outcome.status === "sent" ? at : null, at, item.id),
    db.prepare(`UPDATE bulk_batches SET ${counter} = ${counter} + 1, running_count = running_count - 1, updated_at = ? WHERE id = ? AND changes() = 1`).bind(at, batchId),
  ]);
}

/**
 * Every item settled (docs/decisions.md, "Bulk send"): `completed` when at least one envelope was
 * sent, `failed` when none could be (every client failed); a cancelled batch stays `cancelled`.
 */
async function finishBatch(system: RequestContext, batch: BatchRow) {
  const at = nowIso();
  const db = system.db;
  const [guard] = await commitWithOrgAudit(
    db,
    { orgId: batch.org_id, action: "bulk_batch.finished", actor: system.actor, data: { batch_id: batch.id }, at },
    [
      db
        .prepare(
          `UPDATE bulk_batches SET status = CASE WHEN status = 'cancelled' THEN 'cancelled' WHEN sent_count = 0 AND failed_count > 0 THEN 'failed' ELSE 'completed' END,
             finished_at = ?, updated_at = ? WHERE id = ? AND status IN ('running', 'cancelled') AND finished_at IS NULL`,
        )
        .bind(at, at, batch.id),
    ],
    { guarded: true },
  );
  return guard?.meta.changes === 1;
}

/** The workflow gave up (chunks kept failing): the batch is `failed` with the reason; items not reached stay as they are. */
export async function failBulkBatch(system: RequestContext, input: { batchId: string; orgId: string; reason: string }) {
  const at = nowIso();
  const db = system.db;
  await commitWithOrgAudit(
    db,
    { orgId: input.orgId, action: "bulk_batch.finished", actor: system.actor, data: { batch_id: input.batchId, failed: input.reason }, at },
    [db.prepare("UPDATE bulk_batches SET status = 'failed', error = ?, finished_at = ?, updated_at = ? WHERE id = ? AND status = 'running'").bind(input.reason.slice(0, 500), at, at, input.batchId)],
    { guarded: true },
  );
}
