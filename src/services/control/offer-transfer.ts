import type { OrgContext } from "../../lib/context";
import { conflict, type ErrorCodesByStatus, mergeErrorCodes, unprocessable } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { newShardId, shardOf } from "../../lib/shards";
import { orgShardInsert } from "../shards/repository";
import type { TransferKind } from "../../db/schema";
import { findOrganization } from "../organizations/repository";
import { commitControl } from "./commit-control";
import { isPendingTransferConflict, type TransferRow } from "./repository";
import { bodySha256, verifyRecordSignature } from "./signature";
import { assertActive, assertController, readControl, TRANSFER_PENDING, type ControlState } from "./state";
import { transferView, type TransferView } from "./view";
import { apiIssue } from "../../lib/validation";

/** How long an offer stays open (docs/control.md): a transfer still pending then is expired. */
export const TRANSFER_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** 409 `already_pledged`: the controller holds the copy as pledgee; pledging it onward would erase the pledgor's right of return. */
export const ALREADY_PLEDGED = "already_pledged";

export const pendingConflict = (pending: Pick<TransferRow, "id" | "to_org_id" | "pool_id">) =>
  pending.pool_id
    ? conflict("This record is in a pending pool: the pool must be accepted, rejected, cancelled or expire first", { transfer_id: pending.id, pool_id: pending.pool_id }, TRANSFER_PENDING)
    : conflict("A transfer of this record is already pending: it must be accepted, rejected, cancelled or expire first", { transfer_id: pending.id }, TRANSFER_PENDING);

/** What an offer needs of the state: the caller controls an active record with nothing pending. */
function assertCanOffer(state: ControlState, orgId: string, kind: TransferKind): void {
  assertController(state, orgId);
  assertActive(state);
  if (state.pending) throw pendingConflict(state.pending);
  if (kind === "pledge" && state.record.pledgor_org_id) {
    throw conflict(
      "This record is held under a pledge: release the pledge (or assign it) before pledging it",
      { pledgor_org_id: state.record.pledgor_org_id },
      ALREADY_PLEDGED,
    );
  }
}

/**
 * POST /partner/vault/:vault_id/transfers (docs/control.md): the controller offers control (an assignment
 * or a pledge) to another organization. One step through commitControl: the chain entry
 * `vault.transfer_requested` (with the kind, the reference and the Control-Signature), the pending
 * transfer row and the event to both organizations commit in one batch. At most one transfer is pending:
 * a second offer is 409 `transfer_pending`, also when two race (the chain's unique (chain_id, seq) or
 * the partial unique index on pending transfers refuses the loser's batch). The Control-Signature covers
 * the body as received (`kind`, `to_org_id`, `reference`) by its `body_sha256`, and the record's control
 * sequence: it is good for this one offer.
 */
export async function offerTransfer(
  ctx: OrgContext,
  input: { vaultId: string; kind: TransferKind; toOrgId: string; reference: string | null; body?: unknown; signatureHeader: string | undefined },
): Promise<TransferView> {
  const state = await readControl(ctx.db, input.vaultId);
  assertCanOffer(state, ctx.orgId, input.kind);
  if (input.toOrgId === ctx.orgId) {
    throw unprocessable("to_org_id is the caller: a transfer goes to another organization", [apiIssue(["to_org_id"], "another organization", input.toOrgId, "must name another organization")]);
  }
  if (!(await findOrganization(ctx.global, input.toOrgId))) {
    throw unprocessable("to_org_id names no organization", [apiIssue(["to_org_id"], "an existing organization", input.toOrgId, "unknown organization")]);
  }
  const signature = await verifyRecordSignature(ctx.global, {
    orgId: ctx.orgId,
    header: input.signatureHeader,
    claim: { vault_id: input.vaultId, action: "transfer", body_sha256: await bodySha256(input.body ?? { kind: input.kind, to_org_id: input.toOrgId, ...(input.reference === null ? {} : { reference: input.reference }) }) },
    controlSeq: state.controlSeq,
  });
  const id = newShardId("transfer", shardOf(input.vaultId));
  // Across databases (docs/decisions/shards.md 4): the global side first, idempotently: the record's
  // shard joins the transferee's shard set, so its book and incoming transfers (fanned out over that set)
  // find the record once the offer commits. A crash before the shard's batch leaves only an extra shard
  // in the set (an empty query there); a retried offer writes the same row again (INSERT OR IGNORE).
  await orgShardInsert(ctx.global, { orgId: input.toOrgId, shard: ctx.shardId, reason: "vault", at: new Date().toISOString() }).run();
  try {
    return await commitControl(ctx, input.vaultId, async (fresh, at) => {
      assertCanOffer(fresh, ctx.orgId, input.kind);
      const row: TransferRow = {
        id,
        vault_id: fresh.record.id,
        envelope_id: fresh.record.envelope_id,
        kind: input.kind,
        from_org_id: ctx.orgId,
        to_org_id: input.toOrgId,
        status: "pending",
        reference: input.reference,
        created_at: at,
        expires_at: new Date(Date.parse(at) + TRANSFER_TTL_MS).toISOString(),
        settled_at: null,
        pool_id: null,
      };
      return {
        step: {
          action: "vault.transfer_requested",
          fromOrgId: ctx.orgId,
          toOrgId: input.toOrgId,
          transferId: id,
          transfer: { insert: row },
          // the chain replay (vault/control-history.ts) reads `kind` from this entry
          detail: { kind: input.kind, reference: input.reference },
          signature,
          anchorOrgIds: [input.toOrgId],
        },
        result: () => transferView(row),
      };
    });
  } catch (err) {
    if (isPendingTransferConflict(err)) throw conflict("A transfer of this record is already pending", undefined, TRANSFER_PENDING);
    throw err;
  }
}

/** What offering a transfer answers beyond the controller's checks. */
/** What a control step answers while a transfer of the record is pending (pendingConflict). */
export const TRANSFER_PENDING_ERRORS: ErrorCodesByStatus = { 409: [TRANSFER_PENDING] };
export const OFFER_TRANSFER_ERRORS: ErrorCodesByStatus = mergeErrorCodes(TRANSFER_PENDING_ERRORS, { 409: [ALREADY_PLEDGED] });
