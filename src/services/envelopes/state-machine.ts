import type { EnvelopeStatus } from "../../db/schema";
import { apiIssue } from "../../lib/validation";
import { unprocessable } from "../../lib/errors";
import type { EventType } from "../events/outbox";

/**
 * Every move an envelope can make (spec part 3 and docs/decisions/envelope-state-machine.md). Nothing else in the code changes an
 * envelope's status: services name an action, this table says whether it is legal from the current
 * status, where it leads and which event it emits.
 */
export const TRANSITIONS = {
  attach_document: { from: ["pending"], to: "uploaded", event: null, verb: "attach a document to" },
  prepare: { from: ["pending", "uploaded"], to: "preparing", event: null, verb: "prepare" },
  send: { from: ["preparing"], to: "sent", event: "envelope.sent", verb: "send" },
  view: { from: ["sent"], to: "viewed", event: "signer.viewed", verb: "view" },
  complete: { from: ["sent", "viewed"], to: "completed", event: "envelope.completed", verb: "complete" },
  /** paper path: a document signed outside the service is recorded as completed on upload */
  record_paper_signed: {
    from: ["pending", "uploaded"],
    to: "completed",
    event: null,
    verb: "record a signed paper document for",
  },
  vault: { from: ["completed"], to: "vaulted", event: "vault.stored", verb: "vault" },
  decline: { from: ["sent", "viewed"], to: "declined", event: "envelope.declined", verb: "decline" },
  void: {
    from: ["pending", "uploaded", "preparing", "sent", "viewed"],
    to: "voided",
    event: "envelope.voided",
    verb: "void",
  },
  expire: { from: ["sent", "viewed"], to: "expired", event: "envelope.expired", verb: "expire" },
} as const satisfies Record<
  string,
  { from: readonly EnvelopeStatus[]; to: EnvelopeStatus; event: EventType | null; verb: string }
>;

export type EnvelopeAction = keyof typeof TRANSITIONS;

export const TERMINAL_STATUSES: readonly EnvelopeStatus[] = ["declined", "voided", "expired", "vaulted"];

export function canTransition(from: EnvelopeStatus, action: EnvelopeAction): boolean {
  return (TRANSITIONS[action].from as readonly EnvelopeStatus[]).includes(from);
}

/** The target status, or a 422 naming the current status: "Cannot void an envelope with status completed". */
export function assertTransition(from: EnvelopeStatus, action: EnvelopeAction): EnvelopeStatus {
  if (!canTransition(from, action)) {
    const message = `Cannot ${TRANSITIONS[action].verb} an envelope with status ${from}`;
    // the facts as an issue: the field (`status`), what the move needs, what the envelope has
    throw unprocessable(message, [apiIssue(["status"], `an envelope with status ${TRANSITIONS[action].from.join(" | ")}`, from, message, "invalid_status")]);
  }
  return TRANSITIONS[action].to;
}
