import { conflict } from "../../lib/errors";
import type { ServiceContext } from "../context";
import { commitSignerChange } from "./commit-signer-change";
import { signerData, type RequestOrigin } from "./signer-actor";

/**
 * POST /signing/:slug/decline: the signer refuses to sign, with a reason. The signer becomes
 * `declined` and the envelope `declined` in one batch (`signer.declined`, then `envelope.declined`);
 * every other signer's link stops working with it. A signer who has already signed cannot decline.
 */
export async function declineSigning(ctx: ServiceContext, input: { slug: string; reason: string; origin: RequestOrigin }) {
  return commitSignerChange(ctx, input.slug, input.origin, async (sc, at) => {
    const { signer, envelope } = sc;
    if (signer.status === "completed") throw conflict("This signer has already signed and can no longer decline", { signer_status: signer.status });
    const data = { envelope_id: envelope.id, ...signerData(signer), reason: input.reason, declined_at: at };
    return {
      change: {
        entries: [{ action: "signer.declined", data, event: { type: "signer.declined" as const, data } }],
        statements: [ctx.env.DB.prepare("UPDATE signers SET status = 'declined' WHERE id = ? AND status <> 'completed'").bind(signer.id)],
        transition: { action: "decline" as const, data: { reason: input.reason, declined_by: signerData(signer).signer } },
      },
      result: { signer_status: "declined" as const, envelope_status: "declined" as const },
    };
  });
}
