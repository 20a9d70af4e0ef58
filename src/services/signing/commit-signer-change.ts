import { conflict } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import type { AuditAction } from "../audit/actions";
import { auditInsert, isChainConflict } from "../audit/chain";
import type { RequestContext } from "../../lib/context";
import { planTransition, type TransitionInput } from "../envelopes/transition";
import { outboxInsert, type EventType } from "../events/outbox";
import { loadSigningContext, type SigningContext } from "./repository";
import { requestOrigin, signerActor } from "./signer-actor";

export type SignerChange = {
  /** audit entries on the envelope's chain, in order, each with the event it emits (if any) */
  entries: { action: AuditAction; data: Record<string, unknown>; event?: { type: EventType; data: Record<string, unknown> } }[];
  /** the signer's own writes (status, values) */
  statements: D1PreparedStatement[];
  /** an envelope move that belongs to the same change (view, complete, decline), after the entries */
  transition?: Omit<TransitionInput, "orgId" | "envelopeId" | "actor" | "extra">;
  /** undoes work outside D1 (an R2 object written for this attempt) when the batch does not commit */
  abandon?: () => Promise<void>;
};

/**
 * Commits one signer action in a single D1 batch: the signer's writes, its audit entries and events,
 * and the envelope transition it causes. The batch first advances the envelope's `audit_seq` (guarded
 * on the value read) and every audit entry takes the next sequence number of the envelope's chain
 * under a unique index, so two actions on one envelope racing each other (the last two signers
 * submitting at once) cannot both commit: the loser's batch fails whole, and it re-reads and builds
 * again, now seeing the other's completion. That is what makes `envelope.completed` happen exactly once.
 * `build` returns null when, given the state read, there is nothing to do (an idempotent repeat).
 */
export async function commitSignerChange<T>(
  ctx: RequestContext,
  signerId: string,
  build: (sc: SigningContext, at: string) => Promise<{ change: SignerChange | null; result: T }>,
): Promise<T> {
  const db = ctx.env.DB;
  for (let attempt = 0; ; attempt++) {
    const sc = await loadSigningContext(db, signerId);
    const at = nowIso();
    const { change, result } = await build(sc, at);
    if (!change) return result;
    const { envelope } = sc;
    // The credential said who the signer is; the request's context says where they called from.
    const actor = signerActor(sc.signer, requestOrigin(ctx.actor));
    const statements: D1PreparedStatement[] = [
      db
        .prepare("UPDATE envelopes SET audit_seq = audit_seq + ?, updated_at = ? WHERE id = ? AND audit_seq = ?")
        .bind(change.entries.length, at, envelope.id, envelope.audit_seq),
    ];
    const eventIds: string[] = [];
    let head = envelope.head;
    for (const entry of change.entries) {
      const audit = await auditInsert(db, { orgId: envelope.org_id, chainId: envelope.id, head, action: entry.action, actor, data: entry.data, at });
      head = audit.head;
      statements.push(audit.statement);
      if (entry.event) {
        const event = outboxInsert(db, { orgId: envelope.org_id, envelopeId: envelope.id, type: entry.event.type, data: entry.event.data, at });
        statements.push(event.statement);
        eventIds.push(event.id);
      }
    }
    statements.push(...change.statements);
    let guardIndex = -1;
    if (change.transition) {
      const advanced = { ...envelope, audit_seq: envelope.audit_seq + change.entries.length, head };
      const plan = await planTransition({ ...ctx, orgId: envelope.org_id, actor }, advanced, change.transition);
      guardIndex = statements.length;
      statements.push(...plan.statements);
      if (plan.eventId) eventIds.push(plan.eventId);
    }
    let results: D1Result[];
    try {
      results = await db.batch(statements);
    } catch (err) {
      await change.abandon?.();
      if (!isChainConflict(err) || attempt >= 4) throw isChainConflict(err) ? conflict("The envelope changed while this request was processed; retry") : err;
      continue;
    }
    // The unique chain index already refuses a stale head; these guards would only fire if the
    // envelope's `audit_seq` and its chain disagreed. The batch has committed: nothing to undo.
    if (results[0]?.meta.changes !== 1 || (guardIndex >= 0 && results[guardIndex]?.meta.changes !== 1)) {
      throw conflict("The envelope changed while this request was processed; retry");
    }
    ctx.publish(...eventIds);
    return result;
  }
}
