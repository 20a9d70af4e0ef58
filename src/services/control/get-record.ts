import type { OrgContext } from "../../lib/context";
import { assertVisible, readControl } from "./state";
import { controlView, type ControlView } from "./view";

/** GET /partner/vault/:vault_id: the control record, to its parties only (404 to anyone else). */
export async function getControlRecord(ctx: OrgContext, input: { vaultId: string }): Promise<ControlView> {
  const state = await readControl(ctx.db, input.vaultId);
  assertVisible(state, ctx.orgId);
  return controlView(ctx, state);
}
