import type { OrgContext } from "../../lib/context";
import { transitionEnvelope } from "./transition";

/** Voids an open envelope; from completed or any terminal status it is a 422 naming the status. */
export function voidEnvelope(
  ctx: OrgContext,
  input: { envelopeId: string; reason: string },
) {
  return transitionEnvelope(ctx, {
    envelopeId: input.envelopeId,
    action: "void",
    set: { voided_reason: input.reason },
    data: { reason: input.reason },
  });
}
