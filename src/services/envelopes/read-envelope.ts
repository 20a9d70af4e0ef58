import type { OrgContext } from "../../lib/context";
import { getEnvelope, type LoadedEnvelope } from "./repository";

/** GET /partner/envelopes/:id (and its status): one envelope of the caller's organization; 404 otherwise. */
export function readEnvelope(ctx: OrgContext, input: { envelopeId: string }): Promise<LoadedEnvelope> {
  return getEnvelope(ctx.db, ctx.orgId, input.envelopeId);
}
