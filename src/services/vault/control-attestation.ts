import type { Env } from "../../env";
import type { GlobalDb, ShardDb } from "../../lib/shards";
import { ApiError } from "../../lib/errors";
import { loadSealKey } from "../../pdf";
import { GENESIS_HASH } from "../audit/chain";
import { signAttestation, type AttestationPayload } from "../evidence/attestation";
import { controlHistory, type ChainEntryLike } from "./control-history";
import { findVaultFacts } from "./repository";

/**
 * The control attestation of an envelope's vault record as its chain `entries` stand (read by the
 * caller: the attestation route after verifying them, the evidence bundle with the entries it packs):
 * the record's control as the vault holds it, the parties named, the length of the control history
 * and the chain head, signed by the seal key (evidence/attestation.ts). 404 when the envelope is not
 * vaulted; 503 when the seal is not configured.
 */
export async function controlAttestation(
  env: Env,
  dbs: { global: GlobalDb; db: ShardDb },
  input: { envelopeId: string; entries: (ChainEntryLike & { hash: string })[]; at?: Date },
): Promise<{ jws: string; payload: AttestationPayload }> {
  const [row, seal] = await Promise.all([findVaultFacts(dbs.db, input.envelopeId, dbs.global), loadSealKey(env)]);
  if (!row) throw new ApiError(404, "Vaulted document not found: the envelope is not vaulted");
  const payload: AttestationPayload = {
    vault_id: row.id,
    envelope_id: input.envelopeId,
    document_hash: row.document_hash,
    status: row.control_status,
    controller: { org_id: row.controller_org_id, name: row.controller_name },
    pledgor: row.pledgor_org_id ? { org_id: row.pledgor_org_id, name: row.pledgor_name } : null,
    history_length: controlHistory(input.entries).length,
    chain_head: input.entries.at(-1)?.hash ?? GENESIS_HASH,
    iat: Math.floor((input.at ?? new Date()).getTime() / 1000),
  };
  return { jws: await signAttestation(seal, payload), payload };
}
