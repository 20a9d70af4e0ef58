import { gatherFacts } from "../compliance/evaluate";
import type { RequestContext } from "../../lib/context";
import { listOrganizationNames } from "../organizations/repository";
import { runChecks, summarize } from "../vault/compliance-checks";
import { listActiveHolds, type HoldRow, type VaultRecordRow } from "../vault/repository";
import type { TransferRow } from "./repository";
import type { ControlState } from "./state";

// The control record and a transfer as a partner reads them (docs/control.md). One shape for the record
// route, the book, the transfers routes and the attestation.

export type PartyView = { org_id: string; name: string };

export type TransferView = {
  transfer_id: string;
  vault_id: string;
  kind: TransferRow["kind"];
  from_org_id: string;
  to_org_id: string;
  status: TransferRow["status"];
  reference: string | null;
  created_at: string;
  expires_at: string;
  /** the pool (`vpl_…`) this transfer holds the record for; null for a single transfer */
  pool_id: string | null;
};

/** The parts of the record every reader gets (the book's items): everything but the live compliance. */
export type ControlSummaryView = {
  vault_id: string;
  envelope_id: string;
  document_hash: string;
  /** PAdES level of the authoritative copy's seal (docs/evidence.md); null for a paper upload (no seal of ours) */
  evidence_level: string | null;
  vaulted_at: string;
  status: VaultRecordRow["control_status"];
  originator: PartyView;
  controller: PartyView;
  pledgor: PartyView | null;
  pending_transfer: TransferView | null;
  /** when the record closed (paid off, papered out); null while active */
  closed_at: string | null;
  /** set at close from the closing controller's retention policy: the record cannot be destroyed before it */
  retain_until: string | null;
  destroyed_at: string | null;
};

/** A legal hold in force (docs/control.md): while one is, the record cannot be destroyed. */
export type HoldView = { hold_id: string; placed_by_org_id: string | null; reason: string; reference: string | null; placed_at: string };

export const holdView = (row: HoldRow): HoldView => ({
  hold_id: row.id,
  placed_by_org_id: row.placed_by_org_id,
  reason: row.reason,
  reference: row.reference,
  placed_at: row.placed_at,
});

/** A destroyed record's destruction certificate, as kept: its JSON and the seal's JWS over it. */
export type DestructionView = { certificate: Record<string, unknown>; jws: string };

export type ControlView = ControlSummaryView & {
  /** the number of entries of the record's control history: what a Control-Signature signs as `control_seq` (docs/control.md) */
  control_seq: number;
  compliance: { compliant: boolean; score: number; missing_requirements: string[] };
  /** the legal holds in force, oldest first */
  holds: HoldView[];
  destruction: DestructionView | null;
};

/** A transfer as the API shows it (`settled_at` stays internal: the status says what happened). */
export function transferView(row: TransferRow): TransferView {
  return {
    transfer_id: row.id,
    vault_id: row.vault_id,
    kind: row.kind,
    from_org_id: row.from_org_id,
    to_org_id: row.to_org_id,
    status: row.status,
    reference: row.reference,
    created_at: row.created_at,
    expires_at: row.expires_at,
    pool_id: row.pool_id ?? null,
  };
}

/** The record without compliance, its parties named from `names` (an unknown organization is named by its id). */
export function controlSummary(record: VaultRecordRow, pending: TransferRow | null, names: ReadonlyMap<string, string>): ControlSummaryView {
  const party = (orgId: string): PartyView => ({ org_id: orgId, name: names.get(orgId) ?? orgId });
  return {
    vault_id: record.id,
    envelope_id: record.envelope_id,
    document_hash: record.document_hash,
    evidence_level: record.source === "upload" ? null : record.evidence_level,
    vaulted_at: record.stored_at,
    status: record.control_status,
    originator: party(record.org_id),
    controller: party(record.controller_org_id),
    pledgor: record.pledgor_org_id ? party(record.pledgor_org_id) : null,
    pending_transfer: pending ? transferView(pending) : null,
    closed_at: record.closed_at,
    retain_until: record.retain_until,
    destroyed_at: record.destroyed_at,
  };
}

/** The organizations a record names (originator, controller, pledgor). */
export function namedOrgIds(record: Pick<VaultRecordRow, "org_id" | "controller_org_id" | "pledgor_org_id">): string[] {
  return [...new Set([record.org_id, record.controller_org_id, ...(record.pledgor_org_id ? [record.pledgor_org_id] : [])])];
}

/**
 * GET /partner/vault/:vault_id: the control record as `state` read it, the parties named, with the live
 * compliance summary (the same eight checks the certificate runs, on the record and its chain).
 */
export async function controlView(ctx: RequestContext, state: Pick<ControlState, "record" | "envelope" | "pending" | "controlSeq">): Promise<ControlView> {
  const { record, envelope, pending } = state;
  // the record and its chain on the record's shard (ctx.db); the parties' names from global, one read
  const [facts, names, holds] = await Promise.all([gatherFacts(ctx, envelope), listOrganizationNames(ctx.global, namedOrgIds(record)), listActiveHolds(ctx.db, record.id)]);
  const byId = new Map<string, string>();
  for (const n of names) if (n.name) byId.set(n.id, n.name);
  return {
    ...controlSummary(record, pending, byId),
    control_seq: state.controlSeq,
    compliance: summarize(runChecks(facts)),
    holds: holds.map(holdView),
    destruction: destructionOf(record),
  };
}

/** The destruction certificate kept on a destroyed record (null otherwise). */
export function destructionOf(record: Pick<VaultRecordRow, "destruction_certificate" | "destruction_jws">): DestructionView | null {
  if (!record.destruction_certificate || !record.destruction_jws) return null;
  const certificate = typeof record.destruction_certificate === "string" ? (JSON.parse(record.destruction_certificate) as Record<string, unknown>) : record.destruction_certificate;
  return { certificate, jws: record.destruction_jws };
}
