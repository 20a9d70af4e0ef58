import { actingUserId } from "../../lib/actor";
import type { OrgContext } from "../../lib/context";
import { conflict, unprocessable } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithBatchAudit } from "./batch-chain";
import { batchVaultConsentAccept, batchVaultConsentClear, getBatch } from "./repository";
import { assertEditable, batchDetail } from "./serialize";

/**
 * POST /bulk-send/:id/vault-consent: enabling auto-vault needs `acknowledge_authoritative_copy: true`
 * and stamps who accepted and when; accepted once (a second acceptance keeps the first stamp);
 * `auto_vault_enabled: false` clears it. Every envelope the batch creates carries the stamp.
 */
export async function setBatchVaultConsent(ctx: OrgContext, input: { batchId: string; enabled: boolean; acknowledged: boolean }) {
  const { db, orgId } = ctx;
  const batch = await getBatch(db, orgId, input.batchId);
  assertEditable(batch, "change the vault consent of");
  if (input.enabled && !input.acknowledged) {
    throw unprocessable("Validation failed", [
      { code: "invalid_value", expected: "true", received: "false", path: ["acknowledge_authoritative_copy"], message: "Enabling auto-vault requires acknowledging that the vault holds the authoritative copy" },
    ]);
  }
  const at = nowIso();
  const statement = input.enabled ? batchVaultConsentAccept(db, batch.id, actingUserId(ctx.actor), at) : batchVaultConsentClear(db, batch.id, at);
  const [guard] = await commitWithBatchAudit(
    db,
    { orgId, batchId: batch.id, action: "bulk_batch.vault_consent", actor: ctx.actor, data: { batch_id: batch.id, auto_vault_enabled: input.enabled, acknowledge_authoritative_copy: input.acknowledged }, at },
    [statement],
    { guarded: true },
  );
  if (guard?.meta.changes !== 1) throw conflict("The batch is no longer draft or ready: its vault consent cannot change", { batch_id: batch.id });
  return batchDetail(await getBatch(db, orgId, batch.id));
}
