import type { RequestContext } from "../../lib/context";
import { gatherFacts } from "../compliance/evaluate";
import { commitEnvelopeChange, type EnvelopeChange } from "../envelopes/commit";
import { envelopeCertificateIssuedAtUpdate } from "../envelopes/repository";
import type { EventType } from "../events/outbox";
import type { AuditAction } from "../audit/actions";
import { compliantSince, issueCertificate } from "../vault/certificate";
import { controlUpdate, type ControlChange, type VaultRecordRow } from "../vault/repository";
import { directReads, type RecordReader } from "../vault/record-reads";
import { transferInsert, transferSettle, type TransferRow } from "./repository";
import { signatureMismatch, type RecordSignature } from "./signature";
import { readControl, type ControlState } from "./state";
import { orgAnchorInsert } from "../shards/repository";

/** The control actions: each is the chain entry's action and the event both parties receive. */
export type ControlStepAction = Extract<
  AuditAction,
  `vault.${"transfer_requested" | "control_transferred" | "transfer_rejected" | "transfer_cancelled" | "transfer_expired" | "pledge_released" | "paid_off" | "paper_out" | "hold_placed" | "hold_released" | "destroyed"}`
> &
  EventType;

/** One step of control, planned against the state read: what it records and what it changes. */
export type ControlStep = {
  action: ControlStepAction;
  /** the organization control (or the offer) goes from, and to (null: a closing step) */
  fromOrgId: string;
  toOrgId: string | null;
  transferId?: string | null;
  /** the record's control columns as the step leaves them (none: an offer, a rejection, a cancellation, an expiry) */
  change?: ControlChange;
  transfer?: { insert: TransferRow } | { settle: { id: string; status: "accepted" | "rejected" | "cancelled" | "expired" } };
  /** what else the entry records: the kind, a reference, a reason */
  detail?: Record<string, unknown>;
  /**
   * the acting organization's Control-Signature (null: it has no control keys): its key and JWS are kept
   * on the chain; the control sequence it was made at must still be the record's when the step commits
   */
  signature: RecordSignature | null;
  /**
   * Organizations whose anchor row the record's shard gets in the step's batch (an offer: the
   * transferee, who may never have been placed on this shard; docs/decisions/shards.md "FK anchors").
   */
  anchorOrgIds?: string[];
  /**
   * Retention steps (docs/control.md "Retention", "Legal holds"): the step's own writes (a hold's row, the
   * destruction's guarded update), the record's columns as they leave it for the certificate issued with the step,
   * and the organizations the event goes to when not the two parties (every party of the record).
   */
  statements?: D1PreparedStatement[];
  after?: Partial<VaultRecordRow>;
  eventOrgIds?: string[];
  /** who acts, when not what the step implies (null: the operator, or the retention cron) */
  actingOrgId?: string | null;
  /** what the event carries beside the usual fields (a hold's id and reason) */
  eventData?: Record<string, unknown>;
  /** no webhook event for this step: a record moved by a pool, whose parties receive one `vault.pool_accepted` each */
  quiet?: boolean;
};

/** The record as a step leaves it. */
export function recordAfter(record: VaultRecordRow, change: ControlChange | undefined): VaultRecordRow {
  if (!change) return record;
  const { transferAccepted, ...columns } = change;
  return { ...record, ...columns, transfer_count: record.transfer_count + (transferAccepted ? 1 : 0) } as VaultRecordRow;
}

/**
 * Commits one control step through the envelope's one commit (envelopes/commit.ts): the chain entry
 * (naming the acting organization, its API key and its Control-Signature), the record's new control
 * columns (guarded on the ones read), the transfer row, a new certificate version naming the controller,
 * and the event to both parties' endpoints, in one D1 batch. Nothing is half done: a crash before the
 * batch leaves at most an unreferenced certificate PDF; a lost race (another step on the same record)
 * reads again and `plan` decides again on the fresh state. A signed step commits only on the control
 * sequence its signature names (docs/control.md): the check is made on the state the commit advances from,
 * so of two requests carrying one signature at most one commits; the other is 403
 * `control_signature_invalid` (`control_seq`).
 */
export async function commitControl<T>(
  ctx: RequestContext,
  vaultId: string,
  plan: (state: ControlState, at: string) => Promise<{ step: ControlStep; result: (after: VaultRecordRow, state: ControlState) => T }>,
): Promise<T> {
  const { result } = await commitEnvelopeChange(ctx, {
    read: () => readControl(ctx.db, vaultId),
    envelopeOf: (state) => state.envelope,
    plan: async (state, at) => {
      const { step, result } = await plan(state, at);
      const { change, after } = await planControlStep(ctx, state, step, at);
      return { change, result: () => result(after, state) };
    },
  });
  return result();
}

/**
 * The envelope change that records one control step on the state read (commitControl's plan, also
 * run by a pool's chunk of moves, move-pool.ts, which commits many records' changes in one batch
 * through the envelope's commit): the chain entry, the record's guarded control columns, the transfer
 * row, the step's own writes and a new certificate version. `renderPdf: false` issues that version
 * without its PDF, rendered on its first read (vault/certificate.ts openCertificatePdf). `reader`: where
 * the facts and the certificate read from (vault/record-reads.ts; by default each read when asked, a
 * pool's chunk passes its records' read together).
 */
export async function planControlStep(
  ctx: RequestContext,
  state: ControlState,
  step: ControlStep,
  at: string,
  options: { renderPdf?: boolean; reader?: RecordReader } = {},
): Promise<{ change: EnvelopeChange; after: VaultRecordRow }> {
  if (step.signature && step.signature.control_seq !== state.controlSeq) throw signatureMismatch(["control_seq"]);
  const { record, envelope } = state;
  const after = { ...recordAfter(record, step.change), ...(step.after ?? {}) } as VaultRecordRow;
  const data = {
    vault_id: record.id,
    envelope_id: envelope.id,
    transfer_id: step.transferId ?? null,
    from_org_id: step.fromOrgId,
    to_org_id: step.toOrgId,
    controller_org_id: after.controller_org_id,
  };
  const statements: D1PreparedStatement[] = (step.anchorOrgIds ?? []).map((orgId) => orgAnchorInsert(ctx.db, orgId, at));
  if (step.change) statements.push(controlUpdate(ctx.db, record, step.change));
  if (step.transfer && "insert" in step.transfer) statements.push(transferInsert(ctx.db, step.transfer.insert));
  if (step.transfer && "settle" in step.transfer) statements.push(transferSettle(ctx.db, step.transfer.settle.id, step.transfer.settle.status, at));
  statements.push(...(step.statements ?? []));
  const entryData = {
    ...data,
    pledgor_org_id: after.pledgor_org_id,
    control_status: after.control_status,
    acting_org_id: step.actingOrgId !== undefined ? step.actingOrgId : step.action === "vault.transfer_expired" ? null : actingOrgOf(step),
    actor_key_id: ctx.actor.type === "api_key" ? ctx.actor.id : null,
    ...(step.detail ?? {}),
    ...(step.signature ? { control_signature: { kid: step.signature.kid, jws: step.signature.jws } } : {}),
  };
  // A new certificate version names the controller as the step leaves it. The organizations' names and control
  // keys are global rows: read from the global database (a shard's copy of those tables is empty).
  const reader = options.reader ?? directReads(ctx.db);
  const facts = await gatherFacts({ db: ctx.db, global: ctx.global }, envelope, { record: after, step: { action: step.action, data: entryData } }, reader);
  const issued = await issueCertificate(ctx, { envelope, vaultId: record.id, facts, issuedAt: at, reason: step.action, renderPdf: options.renderPdf, reader });
  const current = await reader(ctx.global).latestCertificate(envelope.id);
  statements.push(issued.insert(ctx.db, (current?.version ?? 0) + 1), envelopeCertificateIssuedAtUpdate(ctx.db, envelope.id, compliantSince(issued)));
  const change: EnvelopeChange = {
    entries: [
      {
        action: step.action,
        data: entryData,
        ...(step.quiet ? {} : { event: { type: step.action, data: { ...data, ...(step.eventData ?? {}) }, orgIds: step.eventOrgIds ?? [step.fromOrgId, ...(step.toOrgId ? [step.toOrgId] : [])] } }),
      },
    ],
    statements,
    abandon: () => ctx.env.DOCS.delete(issued.pdfKey),
  };
  return { change, after };
}

/** Who acts in a step: the receiving organization accepts or rejects, the offering or controlling one does the rest. */
function actingOrgOf(step: ControlStep): string {
  const receiving = step.transfer && "settle" in step.transfer && (step.transfer.settle.status === "accepted" || step.transfer.settle.status === "rejected");
  return receiving && step.toOrgId ? step.toOrgId : step.fromOrgId;
}
