import { ApiError, type ErrorCodesByStatus } from "../../lib/errors";
import type { KbaCheckStatus } from "../../db/schema/kba";
import { getKbaCheck } from "./repository";
import type { ShardDb } from "../../lib/shards";

/** What the signing page needs to know: whether this signer answers questions first, and how far they are. */
export type KbaState = { required: boolean; status: KbaCheckStatus | null };

export async function kbaStateOf(db: ShardDb, signerId: string): Promise<KbaState> {
  const check = await getKbaCheck(db, signerId);
  return check ? { required: true, status: check.status } : { required: false, status: null };
}

/** True when nothing stands between this signer and the document (not challenged, or passed). */
export const kbaCleared = (state: KbaState) => !state.required || state.status === "passed";

const WHY: Record<KbaCheckStatus, string> = {
  required: "answer the identity questions first (GET /signing/:slug/kba)",
  passed: "",
  failed: "identity verification failed and this link is locked; the sender can void the envelope or send it again",
  unavailable: "identity questions could not be built for this signer; the sender decides how to continue (void, or send it again)",
};

/**
 * Spec rule 5 (passing KBA precedes viewing and signing): the document, `view`, `submit` and
 * `decline` answer 403 with `code: "kba_required"` until this signer has passed. Declining is refused
 * too: the person holding the link has not shown they are the signer.
 */
export async function assertKbaCleared(db: ShardDb, signerId: string): Promise<void> {
  const state = await kbaStateOf(db, signerId);
  if (kbaCleared(state)) return;
  throw new ApiError(403, `Identity verification required: ${WHY[state.status!]}`, { kba_status: state.status }, "kba_required");
}

export const KBA_GATE_ERRORS: ErrorCodesByStatus = { 403: ["kba_required"] };
