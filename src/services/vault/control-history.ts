import type { HoldFact, VaultFacts } from "./compliance-checks";
import type { VaultRecordRow } from "./repository";

// Control of the authoritative copy read from the envelope's chain (docs/control.md): pure, so the
// compliance checks, the control-history route, the attestation and the evidence bundle agree.

/** A chain entry as stored (data as JSON text) or as about to be written (data as an object). */
export type ChainEntryLike = { seq: number; action: string; data: string | Record<string, unknown>; actor_id: string | null; created_at: string; hash?: string };

export const CONTROL_ACTIONS: ReadonlySet<string> = new Set([
  "vault.transfer_requested",
  "vault.control_transferred",
  "vault.transfer_rejected",
  "vault.transfer_cancelled",
  "vault.transfer_expired",
  "vault.pledge_released",
  "vault.paid_off",
  "vault.paper_out",
]);

export type ControlHistoryEntry = {
  seq: number;
  action: string;
  from_org_id: string | null;
  to_org_id: string | null;
  transfer_id: string | null;
  actor_key_id: string | null;
  at: string;
  entry_hash: string | null;
};

const dataOf = (entry: ChainEntryLike): Record<string, unknown> => (typeof entry.data === "string" ? (JSON.parse(entry.data) as Record<string, unknown>) : entry.data);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** The control entries of a chain, oldest first, as GET /partner/vault/:vault_id/control-history shows them. */
export function controlHistory(entries: ChainEntryLike[]): ControlHistoryEntry[] {
  return entries
    .filter((e) => CONTROL_ACTIONS.has(e.action))
    .map((e) => {
      const d = dataOf(e);
      return {
        seq: e.seq,
        action: e.action,
        from_org_id: str(d.from_org_id),
        to_org_id: str(d.to_org_id),
        transfer_id: str(d.transfer_id),
        actor_key_id: str(d.actor_key_id),
        at: e.created_at,
        entry_hash: e.hash ?? null,
      };
    });
}

/** Who controls the copy as the chain tells it, and whether every change of controller was an authorized one. */
export type ControlAudit = {
  controllerOrgId: string;
  pledgorOrgId: string | null;
  /** changes of controller: accepted transfers and pledge releases */
  changes: number;
  acceptedTransfers: number;
  pledgeReleases: number;
  /** why a change was not authorized (empty: every change was) */
  unauthorized: string[];
};

/**
 * Replays the control entries from the originator: a transfer changes control only when accepted and
 * only if the controller of that moment requested it; a pledge release returns control to the pledgor.
 * Anything else that moves control (an entry naming a controller the replay does not reach) is counted
 * as unauthorized. The record's own columns are compared by the caller.
 */
export function auditControl(entries: ChainEntryLike[], originatorOrgId: string): ControlAudit {
  let controller = originatorOrgId;
  let pledgor: string | null = null;
  const offered = new Map<string, { from: string; to: string; kind: string }>();
  const audit: ControlAudit = { controllerOrgId: controller, pledgorOrgId: null, changes: 0, acceptedTransfers: 0, pledgeReleases: 0, unauthorized: [] };
  for (const entry of entries) {
    if (!CONTROL_ACTIONS.has(entry.action)) continue;
    const d = dataOf(entry);
    const transferId = str(d.transfer_id);
    switch (entry.action) {
      case "vault.transfer_requested": {
        const from = str(d.from_org_id);
        if (from !== controller) audit.unauthorized.push(`entry ${entry.seq}: transfer ${transferId} requested by ${from}, not the controller ${controller}`);
        else if (transferId) offered.set(transferId, { from, to: str(d.to_org_id) ?? "", kind: str(d.kind) ?? "assignment" });
        break;
      }
      case "vault.control_transferred": {
        // A record moved by a pool (docs/control.md "Pools"): the offer is the pool's, made by the
        // controller of the time, whom the entry names as `from_org_id`.
        const poolId = str(d.pool_id);
        const offer = transferId ? (offered.get(transferId) ?? (poolId ? { from: str(d.from_org_id) ?? "", to: str(d.to_org_id) ?? "", kind: str(d.kind) ?? "assignment" } : undefined)) : undefined;
        if (!offer || offer.from !== controller) {
          audit.unauthorized.push(`entry ${entry.seq}: control moved by transfer ${transferId}, which the controller of the time did not request`);
          controller = str(d.controller_org_id) ?? controller;
          pledgor = str(d.pledgor_org_id);
        } else {
          if (offer.kind === "pledge") pledgor = controller;
          else pledgor = null;
          controller = offer.to;
          audit.acceptedTransfers += 1;
        }
        if (transferId) offered.delete(transferId);
        audit.changes += 1;
        break;
      }
      case "vault.pledge_released":
        if (!pledgor) audit.unauthorized.push(`entry ${entry.seq}: a pledge released where none was held`);
        else {
          controller = pledgor;
          pledgor = null;
          audit.pledgeReleases += 1;
        }
        audit.changes += 1;
        break;
      case "vault.transfer_rejected":
      case "vault.transfer_cancelled":
      case "vault.transfer_expired":
        if (transferId) offered.delete(transferId);
        break;
      default:
        break;
    }
    const named = str(d.controller_org_id);
    if (named && named !== controller) audit.unauthorized.push(`entry ${entry.seq}: names controller ${named} where the chain leads to ${controller}`);
  }
  audit.controllerOrgId = controller;
  audit.pledgorOrgId = pledgor;
  return audit;
}

type RecordControl = Pick<VaultRecordRow, "org_id" | "controller_org_id" | "pledgor_org_id" | "control_status" | "transfer_count"> &
  Partial<Pick<VaultRecordRow, "retain_until" | "destroyed_at">>;

/** The legal holds in force after `entries` (docs/control.md "Legal holds"): each `vault.hold_placed` not followed by its `vault.hold_released`. */
export function holdsInForce(entries: ChainEntryLike[]): HoldFact[] {
  const holds = new Map<string, HoldFact>();
  for (const entry of entries) {
    if (entry.action !== "vault.hold_placed" && entry.action !== "vault.hold_released") continue;
    const d = dataOf(entry);
    const id = str(d.hold_id);
    if (!id) continue;
    if (entry.action === "vault.hold_released") holds.delete(id);
    else holds.set(id, { hold_id: id, placed_by_org_id: str(d.placed_by_org_id), reason: str(d.reason) ?? "", reference: str(d.reference), placed_at: str(d.placed_at) ?? entry.created_at });
  }
  return [...holds.values()];
}

/**
 * A record's control facts for the compliance checks: its control columns (with whatever party names the
 * caller has read) and the chain's replay of control. The record must say what its chain says: a
 * controller or pledgor the replay does not reach was set outside an operation, and counts as an
 * unauthorized change (check 5).
 */
export function controlFactsOf(
  record: RecordControl,
  entries: ChainEntryLike[],
  names: { controller?: string | null; pledgor?: string | null; originator?: string | null } = {},
): Pick<VaultFacts, "control" | "audit"> {
  const audit = auditControl(entries, record.org_id);
  const disagrees = audit.controllerOrgId !== record.controller_org_id || audit.pledgorOrgId !== record.pledgor_org_id;
  return {
    control: {
      originatorName: names.originator ?? null,
      controllerOrgId: record.controller_org_id,
      controllerName: names.controller ?? null,
      pledgorOrgId: record.pledgor_org_id,
      pledgorName: names.pledgor ?? null,
      status: record.control_status,
      transferCount: record.transfer_count,
      retainUntil: record.retain_until ?? null,
      destroyedAt: record.destroyed_at ?? null,
      holds: holdsInForce(entries),
    },
    audit: { changes: audit.changes, pledgeReleases: audit.pledgeReleases, unauthorized: audit.unauthorized.length + (disagrees ? 1 : 0) },
  };
}
