import type { RequestContext } from "../../lib/context";
import { commitSignerChange } from "./commit-signer-change";
import { signerData } from "../signers/signer-actor";
import { assertKbaCleared } from "../kba/gate";
import { assertOtpVerified } from "../otp/gate";
import { assertConsentGiven } from "../signers/consent-gate";
import { signerViewedUpdate } from "../signers/repository";

/**
 * POST /signing/:slug/view: the signer opened the document. The first open records `viewed_at` and
 * `signer.viewed`; the envelope's first open also moves it `sent` -> `viewed` (that transition emits
 * the `signer.viewed` event). Opening again changes nothing: idempotent.
 */
export async function viewSigning(ctx: RequestContext, input: { signerId: string }): Promise<{ viewed_at: string }> {
  return commitSignerChange(ctx, input.signerId, async (sc, at) => {
    const { signer, envelope } = sc;
    await assertKbaCleared(ctx.db, signer.id);
    await assertOtpVerified(ctx.db, signer);
    assertConsentGiven(envelope, signer);
    if (signer.viewed_at) return { change: null, result: { viewed_at: signer.viewed_at } };
    const data = { envelope_id: envelope.id, ...signerData(signer), viewed_at: at };
    const statements = [signerViewedUpdate(ctx.db, signer.id, at)];
    const change =
      envelope.status === "sent"
        ? { entries: [], statements, transition: { action: "view" as const, data } }
        : { entries: [{ action: "signer.viewed" as const, data, event: { type: "signer.viewed" as const, data } }], statements };
    return { change, result: { viewed_at: at } };
  });
}
