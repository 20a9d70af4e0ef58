import type { OrgContext } from "../../lib/context";
import { readVerifiedChain } from "../audit/verify-chain";
import { controlHistory, type ControlHistoryEntry } from "../vault/control-history";
import { assertVisible, readControl } from "./state";

/**
 * GET /partner/vault/:vault_id/control-history: the control entries of the envelope's chain, oldest
 * first, to every party. Served as recorded even when the chain does not verify: compliance check 7
 * (and the attestation, which then refuses) say so.
 */
export async function readControlHistory(ctx: OrgContext, input: { vaultId: string }): Promise<ControlHistoryEntry[]> {
  const state = await readControl(ctx.db, input.vaultId);
  assertVisible(state, ctx.orgId);
  const { rows } = await readVerifiedChain(ctx.db, state.envelope.id);
  return controlHistory(rows);
}
