import type { Actor } from "../../lib/actor";
import type { RequestContext } from "../../lib/context";
import type { AuditAction } from "../audit/actions";
import type { EventType } from "../events/outbox";
import { changeEnvelope } from "./commit";
import type { LoadedEnvelope } from "./repository";

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
    /** the webhook event the entry emits (published after the commit) */
    event?: { type: EventType; data: Record<string, unknown> };
    /** undoes side effects outside D1 (an R2 object written for this attempt) when its batch fails */
    abandon?: () => Promise<void>;
  } | null>;
};

/**
 * Appends an entry to an envelope's audit chain without a status change (vault facts such as a
 * tamper detection, a payment's outcome), in one batch with the statements it records: a
 * `changeEnvelope` with one entry. A writer that lost the race reads the envelope again and builds
 * again, so it can see that the other already recorded the same fact. Returns whether an entry was
 * committed.
 */
export async function appendEnvelopeAudit(ctx: RequestContext, input: EnvelopeAuditInput): Promise<boolean> {
  const { result } = await changeEnvelope(ctx, { orgId: input.orgId, envelopeId: input.envelopeId }, async (envelope, at) => {
    const built = await input.build(envelope, at);
    if (!built) return { change: null, result: false };
    return {
      change: { entries: [{ action: built.action, data: built.data, event: built.event }], statements: built.statements, actor: input.actor, abandon: built.abandon },
      result: true,
    };
  });
  return result;
}
