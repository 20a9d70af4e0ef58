import type { OrgContext } from "../../lib/context";
import { getEnvelope } from "./repository";
import { verifyChain } from "../audit/verify-chain";

/** GET /envelopes/:id/audit (console): re-verifies the envelope's hash chain; 404 outside the organization. */
export async function verifyEnvelopeChain(ctx: OrgContext, input: { envelopeId: string }) {
  const envelope = await getEnvelope(ctx.db, ctx.orgId, input.envelopeId);
  return { envelope_id: envelope.id, ...(await verifyChain(ctx.db, envelope.id)) };
}
