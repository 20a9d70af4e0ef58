import { KBA_MAX_ATTEMPTS } from "../../db/schema/kba";
import { ApiError } from "../../lib/errors";
import type { RequestContext } from "../../lib/context";
import { kbaProvider, type KbaProvider, type KbaSubject } from "../../providers/kba";
import type { SignerRow } from "../signers/repository";
import { loadSigningContext, type SigningContext } from "../signers/signing-context";
import { getKbaCheck, type KbaCheckRow } from "./repository";

/** How long a question set can be answered. */
export const KBA_SESSION_TTL_SECONDS = 600;

/** The person the questions are about, asked in their envelope's language. */
export const subjectOf = (sc: Pick<SigningContext, "signer" | "envelope">): KbaSubject => ({ email: sc.signer.email, name: sc.signer.name, locale: sc.envelope.locale });

export const attemptsLeft = (check: KbaCheckRow) => (check.status === "required" ? KBA_MAX_ATTEMPTS - check.attempts_used : 0);

/** The signer, their envelope (open: 410 otherwise) and their KBA check; 404 when this link has no KBA step. */
export async function loadKbaSigner(ctx: RequestContext, signerId: string): Promise<{ sc: SigningContext; check: KbaCheckRow; provider: KbaProvider }> {
  const sc = await loadSigningContext(ctx, signerId);
  const check = await getKbaCheck(ctx.db, sc.signer.id);
  if (!check) throw new ApiError(404, "This signing link has no identity verification step: open the document directly");
  return { sc, check, provider: kbaProvider(ctx.env, check.provider) };
}
