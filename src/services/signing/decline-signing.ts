import { conflict } from "../../lib/errors";
import type { RequestContext } from "../../lib/context";
import type { ChainEntry } from "../envelopes/commit";
import type { SigningContext } from "./repository";
import { commitSignerChange } from "./commit-signer-change";
import { signerData } from "../signers/signer-actor";
import { assertKbaCleared } from "../kba/gate";
import { assertOtpVerified } from "../otp/gate";
import { signerDeclinedUpdate } from "../signers/repository";

/**
 * POST /signing/:slug/decline: the signer refuses to sign, with a reason. The signer becomes
 * `declined` and the envelope `declined` in one batch (`signer.declined`, then `envelope.declined`);
 * every other signer's link stops working with it. A signer who has already signed cannot decline.
 */
export async function declineSigning(
  ctx: RequestContext,
  input: {
    signerId: string;
    reason: string;
    /** entries recorded before the decline in the same change (a consent withdrawal, signing/consent-signing.ts); may refuse first */
    before?: (sc: SigningContext, at: string) => Promise<ChainEntry[]>;
  },
) {
  return commitSignerChange(ctx, input.signerId, async (sc, at) => {
    const { signer, envelope } = sc;
    await assertKbaCleared(ctx.db, signer.id);
    await assertOtpVerified(ctx.db, signer);
    if (signer.status === "completed") throw conflict("This signer has already signed and can no longer decline", { signer_status: signer.status });
    const before = input.before ? await input.before(sc, at) : [];
    const data = { envelope_id: envelope.id, ...signerData(signer), reason: input.reason, declined_at: at };
    return {
      change: {
        entries: [...before, { action: "signer.declined", data, event: { type: "signer.declined" as const, data } }],
        statements: [signerDeclinedUpdate(ctx.db, signer.id)],
        transition: { action: "decline" as const, data: { reason: input.reason, declined_by: signerData(signer).signer } },
      },
      result: { signer_status: "declined" as const, envelope_status: "declined" as const },
    };
  });
}
