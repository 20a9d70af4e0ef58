import { ApiError, notFound } from "../../lib/errors";
import { findOriginalPageSizes, listSigningFields, type SigningFieldRow } from "../documents/repository";
import { getEnvelope, type LoadedEnvelope } from "../envelopes/repository";
import type { RequestContext } from "../../lib/context";
import { getSigner, listSigners, type SignerRow } from "./repository";
import { assertCurrentSession } from "./resolve-credential";

export type SigningContext = { signer: SignerRow; envelope: LoadedEnvelope; signers: SignerRow[]; fields: SigningFieldRow[]; pageSizes?: string | null };

/** Statuses in which a slug still opens the envelope: once it is closed the link stops working. */
export const OPEN_STATUSES = ["sent", "viewed"] as const;

export const isOpen = (status: string) => (OPEN_STATUSES as readonly string[]).includes(status);

/** The 410 of a signer's link whose envelope is closed, naming the status. */
export const closedLink = (status: string) => new ApiError(410, `This signing link no longer works: the envelope is ${status}`, { status });

/**
 * Everything the signer API needs, for the signer its credential named (./resolve-credential.ts). An
 * unknown signer is 404; the link of a closed envelope (completed, declined, voided, expired, vaulted)
 * is 410 naming the status, as DocuSign's expired email links tell the signer why they stopped working.
 */
export async function loadSigningContext(
  ctx: Pick<RequestContext, "db" | "signerSession">,
  signerId: string,
  opts: { allowClosed?: boolean; pageSizes?: boolean } = {},
): Promise<SigningContext> {
  const db = ctx.db;
  const signer = await getSigner(db, signerId);
  if (!signer) throw notFound("Signing link");
  assertCurrentSession(ctx, signer);
  const envelope = await getEnvelope(db, signer.org_id, signer.envelope_id);
  if (!opts.allowClosed && !isOpen(envelope.status)) throw closedLink(envelope.status);
  // the original's page sizes (`pageSizes`: the signing state's) read beside the parties and fields, not after them
  const [signers, fields, pages] = await Promise.all([
    listSigners(db, envelope.id),
    listSigningFields(db, envelope.id),
    opts.pageSizes ? findOriginalPageSizes(db, envelope.id) : null,
  ]);
  return { signer, envelope, signers, fields, ...(opts.pageSizes ? { pageSizes: pages?.page_sizes ?? null } : {}) };
}
