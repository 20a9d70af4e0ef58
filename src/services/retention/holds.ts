import type { RequestContext } from "../../lib/context";
import { ApiError, conflict, type ErrorCodesByStatus, mergeErrorCodes, notFound } from "../../lib/errors";
import { newShardId, shardOf } from "../../lib/shards";
import { commitControl } from "../control/commit-control";
import { assertVisible, readControl, type ControlState } from "../control/state";
import { holdView, type HoldView } from "../control/view";
import { findHold, holdInsert, holdRelease } from "../vault/repository";

// Legal holds (docs/control.md "Legal holds"): placed by a party of the record or by the operator, released by
// whoever placed it; while one is in force the record cannot be destroyed, by hand or by the cron.

/** Who places or releases a hold: a party organization, or the operator (null). */
export type HoldActor = { orgId: string } | { operator: true };

export const RECORD_DESTROYED = "record_destroyed";

/** The parties of a record: its originator, its controller, its pledgor (an organization only offered a transfer is not one yet). */
export function recordParties(state: Pick<ControlState, "record">): string[] {
  const { record } = state;
  return [...new Set([record.org_id, record.controller_org_id, ...(record.pledgor_org_id ? [record.pledgor_org_id] : [])])];
}

function assertParty(state: ControlState, by: HoldActor): void {
  if (!("orgId" in by)) return;
  assertVisible(state, by.orgId);
  if (!recordParties(state).includes(by.orgId)) {
    throw new ApiError(403, "Only a party of the record (its originator, controller or pledgor) may place a legal hold", undefined, "not_a_party");
  }
}

const placedBy = (by: HoldActor): string | null => ("orgId" in by ? by.orgId : null);

/**
 * POST /partner/vault/:vault_id/holds and POST /operator/vault/:vault_id/holds: a legal hold, recorded on the
 * envelope's chain (`vault.hold_placed`) with a new certificate version naming it, the event to every party. A
 * destroyed record takes none (409 `record_destroyed`).
 */
export async function placeHold(ctx: RequestContext, input: { vaultId: string; by: HoldActor; reason: string; reference: string | null }): Promise<HoldView> {
  const holdId = newShardId("hold", shardOf(input.vaultId));
  return commitControl(ctx, input.vaultId, async (state, at) => {
    assertParty(state, input.by);
    if (state.record.control_status === "destroyed") throw conflict("The record was destroyed: it takes no legal hold", { status: "destroyed" }, RECORD_DESTROYED);
    const row = {
      id: holdId,
      vault_id: state.record.id,
      envelope_id: state.envelope.id,
      placed_by_org_id: placedBy(input.by),
      placed_by_actor_id: ctx.actor.id ?? null,
      reason: input.reason,
      reference: input.reference,
      placed_at: at,
    };
    const detail = { hold_id: holdId, placed_by_org_id: row.placed_by_org_id, reason: input.reason, reference: input.reference, placed_at: at };
    return {
      step: {
        action: "vault.hold_placed",
        fromOrgId: row.placed_by_org_id ?? state.record.controller_org_id,
        toOrgId: null,
        actingOrgId: row.placed_by_org_id,
        statements: [holdInsert(ctx.db, row)],
        detail,
        eventData: detail,
        eventOrgIds: recordParties(state),
        signature: null,
      },
      result: () => holdView({ ...row, released_at: null, released_by_actor_id: null }),
    };
  });
}

/**
 * DELETE …/holds/:hold_id: by whoever placed it (another party: 403 `not_hold_owner`; the operator's hold is the
 * operator's to release); recorded on the chain (`vault.hold_released`), the event to every party. Already released:
 * 409 `hold_released`.
 */
export async function releaseHold(ctx: RequestContext, input: { vaultId: string; holdId: string; by: HoldActor }): Promise<HoldView & { released_at: string }> {
  return commitControl(ctx, input.vaultId, async (state, at) => {
    if ("orgId" in input.by) assertVisible(state, input.by.orgId);
    const hold = await findHold(ctx.db, input.vaultId, input.holdId);
    if (!hold) throw notFound("Legal hold");
    if (hold.placed_by_org_id !== placedBy(input.by)) {
      throw new ApiError(403, "Only whoever placed a legal hold may release it", { placed_by_org_id: hold.placed_by_org_id }, "not_hold_owner");
    }
    if (hold.released_at) throw conflict("This legal hold was already released", { released_at: hold.released_at }, "hold_released");
    const detail = { hold_id: hold.id, placed_by_org_id: hold.placed_by_org_id, reason: hold.reason, reference: hold.reference, released_at: at };
    return {
      step: {
        action: "vault.hold_released",
        fromOrgId: hold.placed_by_org_id ?? state.record.controller_org_id,
        toOrgId: null,
        actingOrgId: hold.placed_by_org_id,
        statements: [holdRelease(ctx.db, { holdId: hold.id, actorId: ctx.actor.id ?? null, at })],
        detail,
        eventData: detail,
        eventOrgIds: recordParties(state),
        signature: null,
      },
      result: () => ({ ...holdView(hold), released_at: at }),
    };
  });
}

/** A destroyed record takes no hold, whoever asks (the operator included). */
export const HOLD_ON_DESTROYED_ERRORS: ErrorCodesByStatus = { 409: [RECORD_DESTROYED] };
/** What a partner placing a hold answers: not a party of the record, or the record destroyed. */
export const PLACE_HOLD_ERRORS: ErrorCodesByStatus = mergeErrorCodes({ 403: ["not_a_party"] }, HOLD_ON_DESTROYED_ERRORS);
export const RELEASE_HOLD_ERRORS: ErrorCodesByStatus = { 403: ["not_hold_owner"], 409: ["hold_released"] };
