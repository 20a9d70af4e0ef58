import { bulkBatchFor } from "../../../durable-objects/bulk-batch";
import type { OrgContext } from "../../lib/context";
import { ApiError, conflict, unprocessable } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { assertEmailCanLeave } from "../../providers/email";
import { loadSealKey } from "../../pdf";
import { kbaProvider } from "../../providers/kba";
import { commitWithBatchAudit } from "./batch-chain";
import { findProviderTemplate, findTemplate, listTemplateRoles, templateDb } from "../templates/repository";
import { batchSubmit, batchUnsubmit, countPendingItems, getBatch, type BatchRow } from "./repository";
import { batchDetail } from "./serialize";

const precondition = (path: string, message: string) =>
  unprocessable(message, [{ code: "invalid_value", expected: "a batch ready to send", received: "not ready", path: [path], message }]);

/** The preconditions of submit (spec 4.8) that the batch's own rows decide: each a 422 naming what is missing. */
async function checkReady(ctx: OrgContext, batch: BatchRow) {
  const { db, orgId } = ctx;
  // the master: the batch's builder copy (on the batch's shard) or an organization template (global)
  const tdb = batch.master_template_id ? templateDb(ctx, batch.master_template_id) : null;
  const master = tdb && batch.master_template_id ? await findTemplate(tdb, orgId, batch.master_template_id) : null;
  if (!master || !master.document_key) throw precondition("master_template_id", "The batch has no master template with a document: open the builder session with batch_id (or PATCH master_template_id) first");
  const sendable = await countPendingItems(db, batch.id);
  if (!sendable || sendable.n === 0) throw precondition("customer_ids", "The batch has no client with an email address to send to");
  if (batch.auto_vault_enabled === 1 && !batch.vault_terms_accepted_at) {
    throw precondition("auto_vault_enabled", "Auto-vault is on but its terms were not accepted: POST /bulk-send/:id/vault-consent first");
  }
  // the roles of the master template's fields, in field order: the parties the envelopes are addressed to
  const roles = await listTemplateRoles(tdb!, master.id);
  const signers = batch.add_me_as_signer === 1 ? 2 : 1;
  if (roles.length !== signers) {
    throw precondition(
      "master_template_id",
      `The master template defines ${roles.length} ${roles.length === 1 ? "party" : "parties"} (${roles.join(", ") || "none"}) but the batch has ${signers} ${signers === 1 ? "signer" : "signers"}: it must define exactly one party, or two with add_me_as_signer`,
    );
  }
  // the signing provider's counterpart of the master: every envelope is cloned from it
  const counterpart = await findProviderTemplate(tdb!, master.provider_instance, master.provider_template_id);
  if (!counterpart) throw new ApiError(502, "Signing provider failure: the master template could not be read from the signing provider", { master_template_id: master.id });
  // a KBA batch needs the KBA provider (503 naming KBA_PROVIDER), checked once here rather than per client
  if (master.kba_required === 1) kbaProvider(ctx.env);
  // every client is emailed: production without a transport is a 503 naming EMAIL_TRANSPORT
  assertEmailCanLeave(ctx.env);
  // every envelope will be sealed on completion: a missing or unusable seal is a 503 naming the variable now
  await loadSealKey(ctx.env);
}

/**
 * POST /bulk-send/:id/submit: `ready` -> `running` (202), then the batch's Durable Object starts the
 * workflow. 409 once submitted; 422 for each precondition; 502 when the master template cannot be
 * read from the signing provider; 503 when BULK_BATCH is not bound in this environment.
 */
export async function submitBatch(ctx: OrgContext, input: { batchId: string }) {
  const { db, orgId, env } = ctx;
  const batch = await getBatch(db, orgId, input.batchId);
  if (batch.status !== "draft" && batch.status !== "ready") throw conflict(`The batch was already submitted (status ${batch.status})`, { status: batch.status });
  if (!env.BULK_BATCH) throw new ApiError(503, "Bulk send is not configured in this environment: the BULK_BATCH Durable Object binding is missing");
  await checkReady(ctx, batch);
  const at = nowIso();
  const [guard] = await commitWithBatchAudit(
    db,
    { orgId, batchId: batch.id, action: "bulk_batch.submitted", actor: ctx.actor, data: { batch_id: batch.id, total_count: batch.total_count, skipped_count: batch.skipped_count }, at },
    [batchSubmit(db, batch.id, at)],
    { guarded: true },
  );
  if (guard?.meta.changes !== 1) throw conflict("The batch was already submitted or changed meanwhile", { batch_id: batch.id });
  try {
    await bulkBatchFor({ BULK_BATCH: env.BULK_BATCH }, batch.id).start({ batchId: batch.id, orgId });
  } catch (err) {
    // no workflow took it: put it back, so a retried submit starts it (nothing was sent yet)
    await batchUnsubmit(db, batch.id).run();
    console.error(JSON.stringify({ level: "error", bulk_batch: batch.id, start_failed: String(err) }));
    throw new ApiError(503, "The bulk-send workflow could not be started; retry the submit");
  }
  return batchDetail(await getBatch(db, orgId, batch.id));
}
