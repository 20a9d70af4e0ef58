import type { OrgContext } from "../../lib/context";
import { getEnvelope } from "../envelopes/repository";
import { listKbaResults } from "./repository";

/** GET /envelopes/:id/kba (spec 4.9): the envelope's KBA results (part 2), one per challenged signer's outcome. */
export async function listEnvelopeKba(ctx: OrgContext, input: { envelopeId: string }) {
  const envelope = await getEnvelope(ctx.db, ctx.orgId, input.envelopeId);
  const results = await listKbaResults(ctx.db, envelope.id);
  return results.map((r) => ({
    signer_email: r.signer_email,
    status: r.status,
    occurred_at: r.occurred_at,
    provider: r.provider,
    provider_session_id: r.provider_session_id,
    ip_address: r.ip_address,
    price_cents: r.price_cents,
  }));
}
