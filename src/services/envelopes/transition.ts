import { conflict } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { auditInsert, isChainConflict } from "../audit/chain";
import { outboxInsert } from "../events/outbox";
import type { OrgContext, RequestContext } from "../../lib/context";
import { getEnvelope, type LoadedEnvelope } from "./repository";
import { assertTransition, TRANSITIONS, type EnvelopeAction } from "./state-machine";
import { envelopeEventData } from "./serialize";

/** A move of one envelope; who makes it is `ctx.actor`, the envelope's organization its own. */
export type TransitionInput = {
  action: EnvelopeAction;
  /** extra columns to set with the status, e.g. { voided_reason: "..." } */
  set?: Record<string, string | number | null>;
  /** extra fields for the audit entry and event data */
  data?: Record<string, unknown>;
  /** extra fields for the event data only (e.g. the vault path of `vault.stored`, kept out of the audit log) */
  eventData?: Record<string, unknown>;
  /** statements that belong to the same change (they commit or fail with it) */
  extra?: D1PreparedStatement[];
};

const SETTABLE = new Set(["voided_reason", "signed_at", "expires_at", "vaulted_at", "certificate_issued_at", "secured_party"]);

/**
 * Moves one envelope through the state machine: the status update, the audit entry and the outbox
 * event go in one D1 batch. The update is guarded on the status and audit sequence read, and the audit
 * entry takes the next sequence number under a unique index, so of two racing transitions exactly one
 * commits; the other fails whole and is reported as a conflict.
 */
export async function transitionEnvelope(ctx: OrgContext, input: TransitionInput & { envelopeId: string }): Promise<LoadedEnvelope> {
  const envelope = await getEnvelope(ctx.db, ctx.orgId, input.envelopeId);
  return applyTransition(ctx, envelope, input);
}

export async function applyTransition(
  ctx: RequestContext,
  envelope: LoadedEnvelope,
  input: TransitionInput,
): Promise<LoadedEnvelope> {
  const plan = await planTransition(ctx, envelope, input);
  return commitPlans(ctx, [plan], input.extra);
}

/**
 * Commits planned transitions of one envelope (each planned from the previous one's `updated`) and
 * the statements that belong with them in one batch, then publishes their events. Returns the
 * envelope as the last plan leaves it; a concurrent change makes the whole batch fail: 409.
 */
export async function commitPlans(ctx: RequestContext, plans: TransitionPlan[], extra: D1PreparedStatement[] = []): Promise<LoadedEnvelope> {
  try {
    const results = await ctx.env.DB.batch([...plans.flatMap((p) => p.statements), ...extra]);
    let index = 0;
    for (const plan of plans) {
      if (results[index]?.meta.changes !== 1) throw conflict("The envelope changed while this request was processed; retry");
      index += plan.statements.length;
    }
  } catch (err) {
    if (isChainConflict(err)) throw conflict("The envelope changed while this request was processed; retry");
    throw err;
  }
  ctx.publish(...plans.flatMap((p) => (p.eventId ? [p.eventId] : [])));
  return plans[plans.length - 1]!.updated;
}

export type TransitionPlan = {
  /** the guarded status UPDATE first (its `changes` must be 1), then the audit entry and the event */
  statements: D1PreparedStatement[];
  updated: LoadedEnvelope;
  eventId: string | null;
};

/**
 * The statements of one transition, not yet committed, so that a verb can commit two moves in one
 * batch (the paper path records `completed` and `vaulted` together): plan the second from the
 * first's `updated` envelope. `input.extra` is left to the caller.
 */
export async function planTransition(ctx: RequestContext, envelope: LoadedEnvelope, input: TransitionInput): Promise<TransitionPlan> {
  const db = ctx.db;
  const to = assertTransition(envelope.status, input.action);
  const at = nowIso();
  const set = input.set ?? {};
  const columns = Object.keys(set).filter((k) => SETTABLE.has(k));
  const update = db
    .prepare(
      `UPDATE envelopes SET status = ?, updated_at = ?, audit_seq = audit_seq + 1${columns.map((c) => `, ${c} = ?`).join("")}
       WHERE id = ? AND org_id = ? AND status = ? AND audit_seq = ?`,
    )
    .bind(to, at, ...columns.map((c) => set[c] ?? null), envelope.id, envelope.org_id, envelope.status, envelope.audit_seq);
  const audit = await auditInsert(db, {
    orgId: envelope.org_id,
    chainId: envelope.id,
    head: envelope.head,
    action: `envelope.${input.action}`,
    actor: ctx.actor,
    data: { from: envelope.status, to, ...(input.data ?? {}) },
    at,
  });
  const eventType = TRANSITIONS[input.action].event;
  const updated: LoadedEnvelope = { ...envelope, ...set, status: to, updated_at: at, audit_seq: audit.head.seq, head: audit.head };
  const event = eventType
    ? outboxInsert(db, {
        orgId: envelope.org_id,
        envelopeId: envelope.id,
        type: eventType,
        data: { ...envelopeEventData(updated), ...(input.data ?? {}), ...(input.eventData ?? {}) },
        at,
      })
    : null;
  return { statements: [update, audit.statement, ...(event ? [event.statement] : [])], updated, eventId: event?.id ?? null };
}
