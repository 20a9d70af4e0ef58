import type { RequestContext } from "../../lib/context";
import { canonicalJson, sha256Hex } from "../../lib/crypto";
import { ApiError, conflict, type ErrorCodesByStatus } from "../../lib/errors";
import { loadSealKey } from "../../pdf";
import { commitControl } from "../control/commit-control";
import { assertController, readControl, type ControlState } from "../control/state";
import type { DestructionView } from "../control/view";
import { signWithSeal } from "../evidence/attestation";
import { destroyedUpdate, listActiveHolds, type HoldRow, type VaultRecordRow } from "../vault/repository";
import { DESTROYED_REMAINS } from "../vault/signed-url";
import { deletePending, filesToDelete, type DestroyedFile } from "./destroyed-files";
import { recordParties, RECORD_DESTROYED } from "./holds";

// Destruction of a closed record after its retention period (docs/control.md "Retention").

export const LEGAL_HOLD = "legal_hold";
export const RETENTION_PERIOD = "retention_period";
export const DESTRUCTION_TYP = "vault-destruction-certificate+jws";

/** Who destroys: the controller by hand, or the retention cron for a controller whose policy says `auto_destroy`. */
export type Destroyer = { orgId: string } | { cron: true };

export type Destruction = { vault_id: string; status: "destroyed"; destroyed_at: string; destruction: DestructionView };

/**
 * Why `record` may not be destroyed as of `asOf`, in the order that wins (a legal hold over the retention period),
 * or null. Pure, so the verb, the cron and the property test agree.
 */
export function destructionRefusal(record: Pick<VaultRecordRow, "control_status" | "retain_until" | "destroyed_at">, holds: Pick<HoldRow, "id">[], asOf: Date): ApiError | null {
  if (record.control_status === "destroyed") return conflict("The record was already destroyed", { status: "destroyed", destroyed_at: record.destroyed_at }, RECORD_DESTROYED);
  if (holds.length > 0) {
    return conflict("The record is under a legal hold: it cannot be destroyed until every hold is released", { hold_ids: holds.map((h) => h.id) }, LEGAL_HOLD);
  }
  if (record.control_status === "active" || !record.retain_until) {
    return conflict("The record is still active: its retention period starts when it is paid off or papered out", { status: record.control_status, retain_until: null }, RETENTION_PERIOD);
  }
  if (Date.parse(record.retain_until) > asOf.getTime()) {
    return conflict(`The record is kept until ${record.retain_until}: it cannot be destroyed before`, { retain_until: record.retain_until }, RETENTION_PERIOD);
  }
  return null;
}

/**
 * POST /partner/vault/:vault_id/destroy (the controller) and the retention cron: destroys a closed record whose
 * `retain_until` has passed and that no legal hold keeps (409 `legal_hold`, which wins over 409 `retention_period`).
 * One step on the envelope's chain (`vault.destroyed`, with the destruction certificate's SHA-256), the record
 * `destroyed` with the certificate and the seal's JWS over it, a certificate version saying so, `vault.destroyed`
 * to every party; then the files are deleted (their keys kept on the record until they are, for the cron to retry). The commit comes first: a hold placed meanwhile advances the chain, so
 * the destruction re-plans and is refused; the record's update is guarded in SQL on the same rules as well.
 * `asOf` is the time the rules are judged at (the cron's scheduled time; now for a request).
 */
export async function destroyRecord(ctx: RequestContext, input: { vaultId: string; by: Destroyer; asOf?: Date }): Promise<Destruction> {
  const first = await readControl(ctx.db, input.vaultId);
  if ("orgId" in input.by) assertController(first, input.by.orgId);
  const seal = await loadSealKey(ctx.env);
  let files: DestroyedFile[] = [];
  const result = await commitControl(ctx, input.vaultId, async (state: ControlState, at) => {
    if ("orgId" in input.by) assertController(state, input.by.orgId);
    const asOf = input.asOf ?? new Date(at);
    const holds = await listActiveHolds(ctx.db, state.record.id);
    const refusal = destructionRefusal(state.record, holds, asOf);
    if (refusal) throw refusal;
    const { record, envelope } = state;
    files = await filesToDelete(ctx.db, ctx.env.DOCS, record);
    const certificate = {
      type: "vault-destruction-certificate",
      vault_id: record.id,
      envelope_id: envelope.id,
      document_hash: record.document_hash,
      copy_hash: record.copy_hash,
      closed_status: record.control_status,
      closed_at: record.closed_at,
      retain_until: record.retain_until,
      destroyed_at: at,
      destroyed_by: "orgId" in input.by ? { type: "organization", org_id: input.by.orgId } : { type: "retention_cron", org_id: record.controller_org_id },
      controller: record.controller_org_id,
      originator: record.org_id,
      deleted: files.map(({ file, sha256 }) => ({ file, sha256 })),
      kept: ["document_hash", "audit_chain", "certificate_json", "certificate_pdf", "evidence_record", "destruction_certificate"],
      remains_verifiable: DESTROYED_REMAINS,
      chain_length: envelope.audit_seq,
      chain_head: envelope.head.hash,
    };
    const json = canonicalJson(certificate);
    const jws = await signWithSeal(seal, new TextEncoder().encode(json), DESTRUCTION_TYP);
    const certificateSha256 = await sha256Hex(json);
    return {
      step: {
        action: "vault.destroyed",
        fromOrgId: record.controller_org_id,
        toOrgId: null,
        actingOrgId: "orgId" in input.by ? input.by.orgId : null,
        statements: [destroyedUpdate(ctx.db, { vaultId: record.id, at, asOf: asOf.toISOString(), certificate, jws, pendingDeletions: files.map((f) => f.key) })],
        after: { control_status: "destroyed", destroyed_at: at },
        detail: { destroyed_by: certificate.destroyed_by, retain_until: record.retain_until, destruction_certificate_sha256: certificateSha256, deleted: certificate.deleted },
        eventData: { destroyed_at: at, destruction_certificate_sha256: certificateSha256 },
        eventOrgIds: recordParties(state),
        signature: null,
      },
      result: (): Destruction => ({ vault_id: record.id, status: "destroyed", destroyed_at: at, destruction: { certificate, jws } }),
    };
  });
  // After the commit: the record is destroyed in every read and every download is refused; the bytes go now. Their
  // keys were written with the commit, so a delete that fails here (or a Worker that dies first) is retried by the cron.
  if (files.length > 0) await deletePending(ctx.db, ctx.env.DOCS, result.vault_id, files.map((f) => f.key));
  return result;
}

export const DESTROY_RECORD_ERRORS: ErrorCodesByStatus = { 409: [RECORD_DESTROYED, LEGAL_HOLD, RETENTION_PERIOD] };
