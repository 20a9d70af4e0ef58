import type { OrgContext } from "../../lib/context";
import { conflict, type ErrorCodesByStatus } from "../../lib/errors";
import { readVerifiedChain } from "../audit/verify-chain";
import { controlAttestation } from "../vault/control-attestation";
import { assertVisible, readControl } from "./state";

export const AUDIT_CHAIN_BROKEN = "audit_chain_broken";

/**
 * GET /partner/vault/:vault_id/attestation: the control attestation as of now (a compact JWS by the
 * seal key, `x5c` its certificate chain), to every party. The service signs only a chain that
 * verifies: a broken one is 409 `audit_chain_broken`; no seal configured is 503.
 */
export async function getControlAttestation(ctx: OrgContext, input: { vaultId: string }): Promise<{ jws: string }> {
  const state = await readControl(ctx.db, input.vaultId);
  assertVisible(state, ctx.orgId);
  const { verification, rows } = await readVerifiedChain(ctx.db, state.envelope.id);
  if (!verification.verified) {
    throw conflict("The envelope's audit chain does not verify: the service attests control only over a chain that does", { first_broken: verification.first_broken }, AUDIT_CHAIN_BROKEN);
  }
  const { jws } = await controlAttestation(ctx.env, ctx, { envelopeId: state.envelope.id, entries: rows });
  return { jws };
}

export const ATTESTATION_ERRORS: ErrorCodesByStatus = { 409: [AUDIT_CHAIN_BROKEN] };
