import { ApiError, conflict, type ErrorCodesByStatus, mergeErrorCodes, notFound } from "../../lib/errors";
import { countChainActions } from "../audit/repository";
import { getEnvelope, type LoadedEnvelope } from "../envelopes/repository";
import { CONTROL_ACTIONS } from "../vault/control-history";
import { findVaultRecordById, type VaultRecordRow } from "../vault/repository";
import { findPendingTransfer, type TransferRow } from "./repository";

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
