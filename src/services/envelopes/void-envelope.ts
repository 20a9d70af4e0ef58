import type { Actor } from "../../lib/actor";
import type { ServiceContext } from "../context";
import { transitionEnvelope } from "./transition";

/** Voids an open envelope; from completed or any terminal status it is a 422 naming the status. */
export function voidEnvelope(
  ctx: ServiceContext,
  input: { orgId: string; envelopeId: string; reason: string; actor: Actor },
) {
  return transitionEnvelope(ctx, {
    orgId: input.orgId,
    envelopeId: input.envelopeId,
    action: "void",
    actor: input.actor,
    set: { voided_reason: input.reason },
    data: { reason: input.reason },
  });
}
