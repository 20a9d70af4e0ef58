import { nowIso } from "../../lib/time";
import { getEnvelope, type LoadedEnvelope } from "../envelopes/repository";
import type { Actor } from "../../lib/actor";
import type { AuditAction } from "./actions";
import { auditInsert, isChainConflict } from "./chain";

export type EnvelopeAuditInput = {
  orgId: string;
  envelopeId: string;
  actor: Actor;
  /**
   * Called with the envelope as just read (status, chain head) for each attempt. Returns the entry
   * to append, or null when, given that state, there is nothing to record; plus the statements that
   * belong with it.
   */
  build: (
    envelope: LoadedEnvelope,
    at: string,
  ) => Promise<{
    action: AuditAction;
    data: Record<string, unknown>;
    statements: D1PreparedStatement[];
    /** undoes side effects outside D1 (an R2 object written for this attempt) when its batch fails */
    abandon?: () => Promise<void>;
  } | null>;
};

/**
 * Appends an entry to an envelope's audit chain without a status change (vault facts such as a
 * tamper detection), in one batch with the statements it records. The envelope's `audit_seq` moves
 * with it, guarded like a transition, so the next transition still links to the true head. Two
 * writers racing for the same sequence number collide on the chain's unique index; the loser re-reads
 * the envelope and builds again, so it can see that the other already recorded the same fact.
 * Returns whether an entry was committed.
 */
export async function appendEnvelopeAudit(db: D1Database, input: EnvelopeAuditInput): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const envelope = await getEnvelope(db, input.orgId, input.envelopeId);
    const at = nowIso();
    const built = await input.build(envelope, at);
    if (!built) return false;
    const audit = await auditInsert(db, {
      orgId: envelope.org_id,
      chainId: envelope.id,
      head: envelope.head,
      action: built.action,
      actor: input.actor,
      data: built.data,
      at,
    });
    const advance = db
      .prepare("UPDATE envelopes SET audit_seq = audit_seq + 1, updated_at = ? WHERE id = ? AND audit_seq = ?")
      .bind(at, envelope.id, envelope.audit_seq);
    try {
      await db.batch([advance, audit.statement, ...built.statements]);
      return true;
    } catch (err) {
      await built.abandon?.();
      if (!isChainConflict(err) || attempt >= 4) throw err;
    }
  }
}
