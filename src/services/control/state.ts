import { ApiError, conflict, type ErrorCodesByStatus, mergeErrorCodes, notFound } from "../../lib/errors";
import { countChainActions, selectChainActionCountsOfRecords } from "../audit/repository";
import { getEnvelope, loadedEnvelopeOf, selectLoadedEnvelopesOfRecords, type LoadedEnvelope, type LoadedEnvelopeRow } from "../envelopes/repository";
import { CONTROL_ACTIONS } from "../vault/control-history";
import { findVaultRecordById, selectVaultRecordsOf, type VaultRecordRow } from "../vault/repository";
import { findPendingTransfer, selectPendingTransfersOf, type TransferRow } from "./repository";

/**
 * A vaulted envelope's control as one read sees it: the record, its envelope (with its chain head), the
 * pending transfer and the control sequence: the number of control entries on the chain up to that head
 * (docs/control.md: the length of GET …/control-history; every recorded control step adds one).
 */
export type ControlState = { record: VaultRecordRow; envelope: LoadedEnvelope; pending: TransferRow | null; controlSeq: number };

export const NOT_CONTROLLER = "not_controller";
export const CONTROL_CLOSED = "control_closed";
export const TRANSFER_PENDING = "transfer_pending";

/** Reads the record of `vaultId` with its envelope and pending transfer; 404 when there is none. */
export async function readControl(db: D1Database, vaultId: string): Promise<ControlState> {
  const record = await findVaultRecordById(db, vaultId);
  if (!record) throw notFound("Vault record");
  const [envelope, pending] = await Promise.all([getEnvelope(db, record.org_id, record.envelope_id), findPendingTransfer(db, vaultId)]);
  return { record, envelope, pending, controlSeq: await countControlEntries(db, envelope) };
}

/**
 * readControl for many records of one shard at once (a pool's chunk): one batch (one snapshot) of one
 * statement per kind: the records, their envelopes with their chain heads, their pending transfers and
 * their control sequences. Each state is the one readControl answers; a record not found (or whose
 * envelope is not its organization's) is absent from the map.
 */
export async function readControlMany(db: D1Database, vaultIds: string[]): Promise<Map<string, ControlState>> {
  const states = new Map<string, ControlState>();
  if (vaultIds.length === 0) return states;
  // the envelopes are named by their records, read in the same batch
  const [records, envelopes, pending, counts] = await db.batch<unknown>([
    selectVaultRecordsOf(db, vaultIds),
    selectLoadedEnvelopesOfRecords(db, vaultIds),
    selectPendingTransfersOf(db, vaultIds),
    selectChainActionCountsOfRecords(db, vaultIds, [...CONTROL_ACTIONS]),
  ]);
  const envelopeById = new Map((envelopes!.results as LoadedEnvelopeRow[]).map((row) => [row.id, loadedEnvelopeOf(row)!]));
  const pendingOf = new Map((pending!.results as TransferRow[]).map((t) => [t.vault_id, t]));
  const countOf = new Map((counts!.results as { id: string; n: number }[]).map((c) => [c.id, c.n]));
  for (const record of records!.results as VaultRecordRow[]) {
    const envelope = envelopeById.get(record.envelope_id);
    if (!envelope || envelope.org_id !== record.org_id) continue;
    states.set(record.id, { record, envelope, pending: pendingOf.get(record.id) ?? null, controlSeq: countOf.get(envelope.id) ?? 0 });
  }
  return states;
}

/**
 * The control entries of the envelope's chain up to the head `envelope` was read at (`seq <=
 * audit_seq`): entries are never rewritten, so this is the sequence as of that head even if a step
 * commits meanwhile. A commit planned on this state advances the chain from that head, so it fails
 * (and is planned again on a fresh read) if any step committed in between: the sequence a
 * Control-Signature was checked against is the one its step commits on.
 */
function countControlEntries(db: D1Database, envelope: Pick<LoadedEnvelope, "id" | "audit_seq">): Promise<number> {
  return countChainActions(db, { chainId: envelope.id, uptoSeq: envelope.audit_seq, actions: [...CONTROL_ACTIONS] });
}

/** The organizations that may see a record (docs/control.md): originator, controller, pledgor, and the one a pending transfer is offered to. */
export function partiesOf(state: Pick<ControlState, "record" | "pending">): Set<string> {
  const { record, pending } = state;
  const parties = new Set([record.org_id, record.controller_org_id]);
  if (record.pledgor_org_id) parties.add(record.pledgor_org_id);
  if (pending) parties.add(pending.to_org_id);
  return parties;
}

/** 404 to anyone who is not a party: a record another organization cannot see does not exist for it. */
export function assertVisible(state: Pick<ControlState, "record" | "pending">, orgId: string): void {
  if (!partiesOf(state).has(orgId)) throw notFound("Vault record");
}

/** Only the controller of the moment acts on control (403 `not_controller` to the other parties, 404 to the rest). */
export function assertController(state: Pick<ControlState, "record" | "pending">, orgId: string): void {
  assertVisible(state, orgId);
  if (state.record.controller_org_id !== orgId) {
    throw new ApiError(403, "Only the controller of the authoritative copy may do this", { controller_org_id: state.record.controller_org_id }, NOT_CONTROLLER);
  }
}

/** A paid-off or papered-out record takes no control operation: 409 `control_closed`. */
export function assertActive(state: Pick<ControlState, "record">): void {
  if (state.record.control_status !== "active") {
    throw conflict(`Control of this record is closed: it is ${state.record.control_status}`, { status: state.record.control_status }, CONTROL_CLOSED);
  }
}

/** What a control verb answers on a paid-off or papered-out record (assertActive). */
export const CONTROL_CLOSED_ERRORS: ErrorCodesByStatus = { 409: [CONTROL_CLOSED] };
/** What a verb only the controller may call answers (assertController, then assertActive). */
export const CONTROLLER_ERRORS: ErrorCodesByStatus = mergeErrorCodes({ 403: [NOT_CONTROLLER] }, CONTROL_CLOSED_ERRORS);
