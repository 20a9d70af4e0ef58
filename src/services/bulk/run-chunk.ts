import type { BulkHooks, ChunkOutcome } from "../../../durable-objects/bulk-batch";
import { onShardOf, type OrgContext, type RequestContext } from "../../lib/context";
import type { ShardDb } from "../../lib/shards";
import { ApiError } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithBatchAudit } from "./batch-chain";
import { getCustomerContact } from "../customers/repository";
import { findEnvelopeStatus } from "../envelopes/repository";
import { consentAtCreate } from "../compose/consent-at-create";
import type { Locale } from "../../db/schema/locales";
import type { EnvelopeConsent } from "../envelopes/repository";
import { sendEnvelope } from "../compose/send-envelope";
import { selectOrganizationName, selectUserContact } from "../organizations/repository";
import { fieldFromRow, selectTemplate, selectTemplateFields, templateDb, type FieldRow, type TemplateRow } from "../templates/repository";
import { bulkSigners, clientOf, isCrash, logGroupFailure, type ChunkItem, type Master, type RunState, type Sender } from "./chunk-state";
import { bulkEnvelopeStatements, createBulkEnvelope, type ClientData } from "./create-bulk-envelope";
import { sendGroup } from "./send-group";
import { batchFail, batchFinish, claimItem, claimItems, findBatch, itemRetryRecord, selectChunkItems, settleItem as settleItemStatements, type BatchRow, type ItemRow } from "./repository";

/**
 * Items per chunk (one alarm, one Worker invocation): 13 to 17 D1 statements an envelope, so a chunk
 * stays under 1,000 statements (D1's per-invocation query budget, counted per statement to be safe).
 */
export const CHUNK_SIZE = 50;
/**
 * Envelopes created (then sent) together in one D1 batch, i.e. one transaction: the whole chunk, so a
 * chunk is six round trips (read, claim, create, read back, send, then the next alarm) whatever its size.
 */
export const GROUP_SIZE = 50;
/** Items of a chunk in flight at once on the fallback path (one item at a time, as a manual send). */
const LANES = 8;
/** Attempts per item before it is `failed` (transient errors only; a 4xx of the send fails it at once). */
export const MAX_ITEM_ATTEMPTS = 3;


/**
 * One chunk of a batch's workflow, run by its Durable Object's alarm (durable-objects/bulk-batch.ts).
 * One read of the chunk's items (with their clients and envelopes), the sender, the organization and
 * the master template; then, per group of GROUP_SIZE items, three D1 batches, each a transaction:
 *   claim (pending -> running, only while the batch runs, with the counter)
 *   -> every envelope created `preparing` under its item's reserved id (`createBulkEnvelope`'s statements)
 *   -> every envelope sent (`sendEnvelope`'s statements) with its item `sent` and the counters
 * and the invitations delivered after the commit. A crash anywhere only repeats work up to the last
 * committed batch: a resumed chunk reads which envelopes exist and in which state. A group batch
 * that fails is retried item by item on the manual path (`processItem`, each item's envelope still
 * all or nothing), so one bad client cannot hold up the others. Items left `running` by a crash are
 * picked up first, even after a cancel (they were claimed before it).
 */
export async function runBulkChunk(anywhere: RequestContext, input: { batchId: string; orgId: string; hooks: BulkHooks }): Promise<ChunkOutcome> {
  // everything of the batch is on its shard (named by its id), whatever the organization's current shard
  const system = onShardOf(anywhere, input.batchId);
  const db = system.db;
  const batch = await findBatch(db, input.orgId, input.batchId);
  if (!batch || (batch.status !== "running" && batch.status !== "cancelled")) return "done";
  // submit checks the batch has a master; were it missing (bound as NULL: no rows), masterOf fails below
  const masterId = batch.master_template_id as string;
  // three databases' reads at once: the batch's items (its shard), the sender and the organization
  // (global), the master (the batch's shard for its builder copy, global for an organization template)
  const masterDb = templateDb(system, masterId ?? "");
  const [[items], [sender, org], [template, fields]] = await Promise.all([
    db.batch([selectChunkItems(db, batch.id, { runningOnly: batch.status !== "running", limit: CHUNK_SIZE })]),
    system.global.batch([selectUserContact(system.global, batch.created_by), selectOrganizationName(system.global, batch.org_id)]),
    masterDb.batch([selectTemplate(masterDb, batch.org_id, masterId), selectTemplateFields(masterDb, masterId)]),
  ]);
  const chunk = items!.results as ChunkItem[];
  if (chunk.length === 0) {
    await finishBatch(system, batch);
    return "done";
  }
  const ctx: OrgContext = { ...system, orgId: batch.org_id, actor: { type: "user", id: batch.created_by } };
  const master = masterOf(batch, template!.results[0] as TemplateRow | undefined, fields!.results as FieldRow[]);
  const senderRow = sender!.results[0] as Sender | undefined;
  if (!senderRow) throw new Error(`the batch's sender ${batch.created_by} no longer exists`);
  const state: RunState = {
    ctx,
    batch,
    master,
    sender: senderRow,
    orgName: (org!.results[0] as { name: string }).name,
    // the organization's consent for its new envelopes, as a create without `consumer_consent` decides it,
    // once per locale the chunk's items name (null: the organization's default_locale)
    consentOf: await consentsByLocale(system, batch.org_id, chunk),
    hooks: input.hooks,
  };

  let transient = false;
  for (let i = 0; i < chunk.length; i += GROUP_SIZE) {
    if ((await runGroup(state, chunk.slice(i, i + GROUP_SIZE))) === "retry") transient = true;
  }
  return transient ? "backoff" : "more";
}

/** The E-SIGN consent (and locale) of each item's envelope: one global read per distinct locale of the chunk. */
async function consentsByLocale(system: Pick<OrgContext, "global">, orgId: string, chunk: ChunkItem[]): Promise<(item: { locale: Locale | null }) => EnvelopeConsent> {
  const at = nowIso();
  const locales = [...new Set(chunk.map((i) => i.locale ?? null))];
  const found = new Map(await Promise.all(locales.map(async (locale) => [locale, await consentAtCreate(system.global, { orgId, requested: null, locale, at })] as const)));
  return (item) => found.get(item.locale ?? null)!;
}

function masterOf(batch: BatchRow, template: TemplateRow | undefined, rows: FieldRow[]): Master {
  if (!template || !template.document_key) throw new Error(`the batch's master template ${batch.master_template_id} is missing or has no document`);
  const fields = rows.map(fieldFromRow);
  // the parties in the order of their first field, as listTemplateRoles (submit-batch.ts) lists them
  const roles = [...new Set(fields.map((f) => f.role))];
  return { template, fields, rows, roles };
}

/**
 * One group: claimed in one batch, its missing envelopes created in one batch, its `preparing` ones
 * sent and settled in one batch (send-group.ts). Items the group path cannot take (no email left, a
 * failed group batch, an envelope that needs the manual send's checks) go through `processItem`.
 * Each checkpoint is passed once per group, whether or not its step had anything to do.
 */
async function runGroup(state: RunState, group: ChunkItem[]): Promise<"done" | "retry"> {
  const { ctx, batch, hooks } = state;
  const db = ctx.db;
  const claimed = await claimGroup(db, batch.id, group.filter((i) => i.status === "pending"));
  const mine = group.filter((i) => i.status === "running" || claimed.has(i.id)).map((i) => ({ ...i, status: "running" as const }));
  hooks.checkpoint("claimed");

  const manual: ChunkItem[] = mine.filter((i) => !i.client_email);
  let fast = mine.filter((i) => i.client_email);
  const toCreate = fast.filter((i) => i.envelope_status === null);
  try {
    hooks.checkpoint("before_create");
    if (toCreate.length > 0) {
      const built = await Promise.all(
        toCreate.map((item) => bulkEnvelopeStatements(ctx, { batch, item, master: state.master.template, fields: state.master.fields, fieldRows: state.master.rows, consent: state.consentOf(item), client: clientOf(item)! })),
      );
      await db.batch(built.flatMap((b) => b.statements));
      ctx.publish(...built.map((b) => b.eventId));
      for (const item of toCreate) item.envelope_status = "preparing";
    }
  } catch (err) {
    if (isCrash(err)) throw err;
    logGroupFailure(batch.id, "create", err);
    manual.push(...toCreate);
    fast = fast.filter((i) => !toCreate.includes(i));
  }
  hooks.checkpoint("created");

  manual.push(...(await sendGroup(state, fast)));
  hooks.checkpoint("recorded");

  if (manual.length === 0) return "done";
  let next = 0;
  let transient = false;
  const lane = async () => {
    while (next < manual.length) {
      const item = manual[next++]!;
      if ((await processItem(state, item)) === "retry") transient = true;
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(LANES, manual.length) }, lane));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
  return transient ? "retry" : "done";
}

/** pending -> running for the group's pending items, only while the batch runs, with the counter: the ids it took. */
async function claimGroup(db: ShardDb, batchId: string, pending: ChunkItem[]): Promise<Set<string>> {
  if (pending.length === 0) return new Set();
  const at = nowIso();
  const [claim] = await db.batch(claimItems(db, batchId, pending.map((i) => i.id), at));
  return new Set((claim!.results as { id: string }[]).map((r) => r.id));
}

/**
 * The manual path of one item, each step a guarded D1 write that a resumed chunk can find done:
 * claim -> envelope created under the item's reserved id with the item's envelope_id (one batch)
 * -> `sendEnvelope` (guarded by the envelope's audit sequence) -> item `sent` with its counters
 * (guarded on `running`). Transient failures are retried in a later chunk, MAX_ITEM_ATTEMPTS in all.
 */
async function processItem(state: RunState, item: ItemRow): Promise<"done" | "retry"> {
  const { ctx, batch, hooks } = state;
  const db = ctx.db;
  if (item.status === "pending") {
    const at = nowIso();
    const [claim] = await db.batch(claimItem(db, batch.id, item.id, at));
    if (claim?.meta.changes !== 1) return "done"; // cancelled meanwhile
    hooks.checkpoint("item_claimed");
  }
  try {
    const contact = await getCustomerContact(db, item.customer_id);
    if (!contact?.email) throw new ApiError(422, "The client no longer has an email address");
    const client: ClientData = { name: contact.name, email: contact.email, primary_contact_name: contact.primary_contact_name };
    let envelope: { status: string } | null = await findEnvelopeStatus(db, item.envelope_key);
    if (!envelope) {
      hooks.checkpoint("item_before_create");
      await createBulkEnvelope(ctx, { batch, item, master: state.master.template, fields: state.master.fields, fieldRows: state.master.rows, consent: state.consentOf(item), client });
      hooks.checkpoint("item_created");
      envelope = { status: "preparing" };
    }
    if (envelope.status === "preparing") {
      hooks.checkpoint("item_before_send");
      await sendEnvelope(ctx, { envelopeId: item.envelope_key, body: { send_email: true, signers: bulkSigners(batch, state.master.roles, client, state.sender, item.phone) } });
      hooks.checkpoint("item_sent");
    }
    await settleItem(db, batch.id, item, { status: "sent", error: null });
    hooks.checkpoint("item_recorded");
    return "done";
  } catch (err) {
    if (isCrash(err)) throw err;
    // a send that lost a race with a resumed copy of itself: the envelope went out, which is what counts
    const now = await findEnvelopeStatus(db, item.envelope_key);
    if (now && now.status !== "preparing") {
      await settleItem(db, batch.id, item, { status: "sent", error: null });
      return "done";
    }
    const message = err instanceof Error ? err.message : String(err);
    const attempts = item.attempts + 1;
    const permanent = err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 409;
    if (!permanent && attempts < MAX_ITEM_ATTEMPTS) {
      await itemRetryRecord(db, item.id, attempts, message, nowIso()).run();
      hooks.checkpoint("retry_recorded");
      return "retry";
    }
    // the envelope (if it was created) stays `preparing` under the client, to be sent by hand
    await settleItem(db, batch.id, { ...item, attempts }, { status: "failed", error: message });
    return "done";
  }
}

/** running -> sent | failed, with the batch's counters, in one guarded batch (a replay changes nothing). */
async function settleItem(db: ShardDb, batchId: string, item: ItemRow, outcome: { status: "sent" | "failed"; error: string | null }) {
  await db.batch(settleItemStatements(db, batchId, item, outcome, nowIso()));
}

/** Every item settled: the batch is `completed`, `failed` or stays `cancelled` (batchFinish in ./repository). */
async function finishBatch(system: RequestContext, batch: BatchRow) {
  const at = nowIso();
  const db = system.db;
  const [guard] = await commitWithBatchAudit(
    db,
    { orgId: batch.org_id, batchId: batch.id, action: "bulk_batch.finished", actor: system.actor, data: { batch_id: batch.id }, at },
    [batchFinish(db, batch.id, at)],
    { guarded: true },
  );
  return guard?.meta.changes === 1;
}

/** The workflow gave up (chunks kept failing): the batch is `failed` with the reason; items not reached stay as they are. */
export async function failBulkBatch(anywhere: RequestContext, input: { batchId: string; orgId: string; reason: string }) {
  const at = nowIso();
  const db = onShardOf(anywhere, input.batchId).db;
  await commitWithBatchAudit(
    db,
    { orgId: input.orgId, batchId: input.batchId, action: "bulk_batch.finished", actor: anywhere.actor, data: { batch_id: input.batchId, failed: input.reason }, at },
    [batchFail(db, input.batchId, input.reason, at)],
    { guarded: true },
  );
}
