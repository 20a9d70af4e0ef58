import type { Actor } from "../../lib/actor";
import type { RequestContext } from "../../lib/context";
import { ApiError, conflict } from "../../lib/errors";
import { retryRaces } from "../../lib/retry";
import { nowIso } from "../../lib/time";
import type { AuditAction } from "../audit/actions";
import { auditInsert, isChainConflict } from "../audit/chain";
import { outboxInsert, timelineInsert, type EventType, type TimelineType } from "../events/outbox";
import { advanceChainStatement, getEnvelope, type ChangeSettable, type LoadedEnvelope } from "./repository";
import { envelopeEventData } from "./serialize";
import { assertTransition, TRANSITIONS, type EnvelopeAction } from "./state-machine";

/** An entry on the envelope's audit chain without a status change, with what it emits. */
export type ChainEntry = {
  action: AuditAction;
  data: Record<string, unknown>;
  /** the webhook event it emits, to the envelope's organization, or to each of `orgIds` (both parties of a transfer of control) */
  event?: { type: EventType; data: Record<string, unknown>; orgIds?: string[] };
  /** a record on the envelope's timeline only, never a webhook (spec 6.5: `kba.verified`) */
  timeline?: { type: TimelineType; data: Record<string, unknown> };
};

/** A state-machine move (state-machine.ts): its audit entry is `envelope.<action>`, its event the table's. */
export type EnvelopeMove = {
  action: EnvelopeAction;
  /** columns set with the status, e.g. { voided_reason: "..." } */
  set?: Partial<Record<ChangeSettable, string | number | null>>;
  /** extra fields for the audit entry and the event */
  data?: Record<string, unknown>;
  /** extra fields for the event only (the vault path of `vault.stored`, kept out of the audit log) */
  eventData?: Record<string, unknown>;
};

/**
 * One change of one envelope: its chain entries, then its moves, then the writes that belong with it.
 * Everything commits in one D1 batch or not at all.
 */
export type EnvelopeChange = {
  entries?: ChainEntry[];
  moves?: EnvelopeMove[];
  /** the change's own writes (a signer's status, a vault record…), after the chain's statements */
  statements?: D1PreparedStatement[];
  /** who makes it, when not `ctx.actor` (a signer known from the credential) */
  actor?: Actor;
  /** when, when the caller fixed it before planning (a rendered document carries it); else the attempt's time */
  at?: string;
  /** undoes work outside D1 done for this change (an R2 object) when it does not commit */
  abandon?: () => Promise<void>;
};

/** A change planned against the envelope as read: its statements (the guarded advance first), the envelope it leaves, its events. */
export type PlannedChange = { statements: D1PreparedStatement[]; updated: LoadedEnvelope; eventIds: string[]; abandon?: () => Promise<void> };

const CHANGED = "The envelope changed while this request was processed; retry";

/** The answer to a change that lost its race every time it was tried. */
export const envelopeChanged = () => conflict(CHANGED);

/** A batch refused because the envelope moved since it was read: the chain's unique (chain_id, seq) or the advance's guard. */
export function isEnvelopeRace(err: unknown): boolean {
  return isChainConflict(err) || (err instanceof ApiError && err.status === 409 && err.message === CHANGED);
}

/**
 * Plans a change against the envelope as read, without touching the database: one guarded advance of
 * the chain (by the number of entries, with the final status and the columns the moves set), each
 * audit entry linked to the previous one's hash, and the events. Pure apart from hashing, so a
 * conflict re-plans in microseconds; the expensive work a change records is done before.
 */
export async function planChange(ctx: RequestContext, envelope: LoadedEnvelope, change: EnvelopeChange, attemptAt = nowIso()): Promise<PlannedChange> {
  const db = ctx.db;
  const at = change.at ?? attemptAt;
  const actor = change.actor ?? ctx.actor;
  const chain: D1PreparedStatement[] = [];
  const eventIds: string[] = [];
  let current: LoadedEnvelope = envelope;
  let set: Partial<Record<ChangeSettable, string | number | null>> = {};
  const append = async (action: AuditAction, data: Record<string, unknown>) => {
    const audit = await auditInsert(db, { orgId: envelope.org_id, chainId: envelope.id, head: current.head, action, actor, data, at });
    chain.push(audit.statement);
    current = { ...current, audit_seq: audit.head.seq, head: audit.head, updated_at: at };
  };
  const emit = (event: { id: string; statement: D1PreparedStatement }, dispatched: boolean) => {
    chain.push(event.statement);
    if (!dispatched) eventIds.push(event.id);
  };
  for (const entry of change.entries ?? []) {
    await append(entry.action, entry.data);
    const event = entry.event;
    if (event) {
      for (const orgId of new Set(event.orgIds ?? [envelope.org_id])) emit(outboxInsert(db, { orgId, envelopeId: envelope.id, type: event.type, data: event.data, at }), false);
    }
    if (entry.timeline) emit(timelineInsert(db, { orgId: envelope.org_id, envelopeId: envelope.id, type: entry.timeline.type, data: entry.timeline.data, at }), true);
  }
  for (const move of change.moves ?? []) {
    const from = current.status;
    const to = assertTransition(from, move.action);
    set = { ...set, ...(move.set ?? {}) };
    await append(`envelope.${move.action}`, { from, to, ...(move.data ?? {}) });
    current = { ...current, ...(move.set ?? {}), status: to } as LoadedEnvelope;
    const type = TRANSITIONS[move.action].event;
    if (type) {
      const data = { ...envelopeEventData(current), ...(move.data ?? {}), ...(move.eventData ?? {}) };
      emit(outboxInsert(db, { orgId: envelope.org_id, envelopeId: envelope.id, type, data, at }), false);
    }
  }
  const advance = advanceChainStatement(db, envelope, {
    entries: current.audit_seq - envelope.audit_seq,
    at,
    ...(change.moves?.length ? { status: current.status, set } : {}),
  });
  return { statements: [advance, ...chain, ...(change.statements ?? [])], updated: current, eventIds, abandon: change.abandon };
}

/**
 * Commits planned changes (of one envelope or many: bulk send commits a chunk's sends together) in one
 * batch, followed by `extra` statements, then publishes their events. A change whose envelope moved
 * since it was read fails the whole batch: the chain's unique index refuses the stale entry, and the
 * advance's `changes` backs it up. Either way: 409 "…; retry" (`isEnvelopeRace`), nothing committed.
 */
export async function commitPlanned(ctx: RequestContext, planned: PlannedChange[], extra: D1PreparedStatement[] = []): Promise<D1Result[]> {
  let results: D1Result[];
  try {
    results = await ctx.db.batch([...planned.flatMap((p) => p.statements), ...extra]);
  } catch (err) {
    await Promise.all(planned.map((p) => p.abandon?.()));
    throw isChainConflict(err) ? envelopeChanged() : err;
  }
  let index = 0;
  for (const plan of planned) {
    // The unique chain index already refuses a stale head; this fires only if `audit_seq` and the chain disagreed.
    if (results[index]?.meta.changes !== 1) throw envelopeChanged();
    index += plan.statements.length;
  }
  ctx.publish(...planned.flatMap((p) => p.eventIds));
  return results;
}

/**
 * The one way to change an envelope. Each attempt reads the state fresh (`read`), asks `plan` what to
 * record given that state (null: nothing to do, an idempotent repeat), plans it (`planChange`) and
 * commits it (`commitPlanned`). A lost race reads and plans again under the one retry policy
 * (lib/retry.ts); the plan callback must therefore be cheap: expensive work (rendering, sealing, R2
 * writes) is done once before, and `plan` only decides whether it still applies.
 */
export async function commitEnvelopeChange<S, T>(
  ctx: RequestContext,
  input: {
    read: (attempt: number) => Promise<S>;
    envelopeOf: (state: S) => LoadedEnvelope;
    plan: (state: S, at: string) => Promise<{ change: EnvelopeChange | null; result: T }>;
  },
): Promise<{ result: T; updated: LoadedEnvelope }> {
  return retryRaces(
    async (attempt) => {
      const state = await input.read(attempt);
      const envelope = input.envelopeOf(state);
      const at = nowIso();
      const { change, result } = await input.plan(state, at);
      if (!change) return { result, updated: envelope };
      const planned = await planChange(ctx, envelope, change, at);
      await commitPlanned(ctx, [planned]);
      return { result, updated: planned.updated };
    },
    isEnvelopeRace,
    () => envelopeChanged(),
  );
}

/** `commitEnvelopeChange` for a change that needs only the envelope: read in `orgId` (the first attempt may reuse one already read). */
export async function changeEnvelope<T = undefined>(
  ctx: RequestContext,
  target: { orgId: string; envelopeId: string; read?: LoadedEnvelope },
  plan: (envelope: LoadedEnvelope, at: string) => Promise<{ change: EnvelopeChange | null; result: T }>,
): Promise<{ result: T; updated: LoadedEnvelope }> {
  return commitEnvelopeChange(ctx, {
    read: (attempt) => (attempt === 0 && target.read ? Promise.resolve(target.read) : getEnvelope(ctx.db, target.orgId, target.envelopeId)),
    envelopeOf: (envelope) => envelope,
    plan,
  });
}
