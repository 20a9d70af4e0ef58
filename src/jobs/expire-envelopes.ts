import { inOrg, type RequestContext } from "../lib/context";
import { findEnvelope, listExpiredEnvelopeIds } from "../services/envelopes/repository";
import { applyTransition } from "../services/envelopes/transition";
import { ApiError } from "../lib/errors";

const BATCH = 100;

/**
 * Moves `sent`/`viewed` envelopes whose `expires_at` has passed to `expired`, firing
 * `envelope.expired`. Bounded per run; a conflict (the signer completed at the same moment) leaves
 * that envelope alone, since its newer status wins.
 */
export async function expireEnvelopes(ctx: RequestContext, now = new Date()): Promise<{ expired: number }> {
  const results = await listExpiredEnvelopeIds(ctx.db, now.toISOString(), BATCH);
  let expired = 0;
  for (const row of results) {
    const envelope = await findEnvelope(ctx.db, row.org_id, row.id);
    if (!envelope) continue;
    try {
      await applyTransition(inOrg(ctx, row.org_id), envelope, {
        action: "expire",
        data: { expires_at: envelope.expires_at },
      });
      expired += 1;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  return { expired };
}
