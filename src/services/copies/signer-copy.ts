import type { RequestContext } from "../../lib/context";
import type { EnvelopeRow } from "../envelopes/repository";
import { closedLink, isOpen } from "../signers/signing-context";
import { copyAvailable, signCopyUrl, type CopyLink } from "./copy-url";

/**
 * What GET /signing/:slug shows of the signer's copy (docs/consumer-signing.md): nothing while the envelope is
 * open (null); for 30 days after completion, while it is `completed` or `vaulted` (under any control
 * status: the copy is marked non-authoritative, which stays true after a paper-out), the signer's own
 * copy link; otherwise the link's 410 naming the status, as before (declined, voided, expired, or a
 * completion more than 30 days old).
 */
export async function signerCopyLink(ctx: RequestContext, input: { envelope: Pick<EnvelopeRow, "id" | "status" | "signed_at">; signerId: string }): Promise<CopyLink | null> {
  const { envelope } = input;
  if (isOpen(envelope.status)) return null;
  if ((envelope.status === "completed" || envelope.status === "vaulted") && copyAvailable(envelope.signed_at)) {
    return signCopyUrl(ctx.env, { envelopeId: envelope.id, recipientId: input.signerId, signedAt: envelope.signed_at });
  }
  throw closedLink(envelope.status);
}
