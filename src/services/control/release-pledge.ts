import type { OrgContext } from "../../lib/context";
import { conflict, type ErrorCodesByStatus } from "../../lib/errors";
import { commitControl } from "./commit-control";
import { pendingConflict } from "./offer-transfer";
import { bodySha256, verifyRecordSignature } from "./signature";
import { assertActive, assertController, readControl, type ControlState } from "./state";
import { controlView, type ControlView } from "./view";

/** 409 `no_pledge`: release-pledge on a record that is not pledged. */
export const NO_PLEDGE = "no_pledge";

function assertCanRelease(state: ControlState, orgId: string): void {
  assertController(state, orgId);
  assertActive(state);
  if (!state.record.pledgor_org_id) throw conflict("This record is not pledged: there is no pledge to release", undefined, NO_PLEDGE);
  // control would leave the organization that offered the pending transfer: it is answered first
  if (state.pending) throw pendingConflict(state.pending);
}

/**
 * POST /partner/vault/:vault_id/release-pledge (docs/control.md): the controller, holding the copy as
 * pledgee, returns control to the pledgor (no acceptance: control returns whence it came). One step:
 * `vault.pledge_released`, controller := pledgor, pledgor := null. While a transfer is pending: 409
 * `transfer_pending` (docs/decisions/control-transfers.md). Answers the record as it is now.
 */
export async function releasePledge(ctx: OrgContext, input: { vaultId: string; signatureHeader: string | undefined }): Promise<ControlView> {
  const read = await readControl(ctx.db, input.vaultId);
  assertCanRelease(read, ctx.orgId);
  const signature = await verifyRecordSignature(ctx.global, {
    orgId: ctx.orgId,
    header: input.signatureHeader,
    claim: { vault_id: input.vaultId, action: "release_pledge", body_sha256: await bodySha256({}) },
    controlSeq: read.controlSeq,
  });
  await commitControl(ctx, input.vaultId, async (state) => {
    assertCanRelease(state, ctx.orgId);
    const pledgor = state.record.pledgor_org_id!;
    return {
      step: {
        action: "vault.pledge_released",
        fromOrgId: ctx.orgId,
        toOrgId: pledgor,
        change: { controller_org_id: pledgor, pledgor_org_id: null },
        signature,
      },
      result: () => undefined,
    };
  });
  return controlView(ctx, await readControl(ctx.db, input.vaultId));
}

export const RELEASE_PLEDGE_ERRORS: ErrorCodesByStatus = { 409: [NO_PLEDGE] };
