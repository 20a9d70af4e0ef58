import { onShardOf, type RequestContext } from "../../lib/context";
import { ApiError, notFound } from "../../lib/errors";
import { isSigningSession, openSigningSession } from "./signing-session";
import { hashSlug, SLUG_HASH_PREFIX } from "./slug";
import { findSignerBySlug, rehashSignerSlug, type SignerRow } from "./repository";

/** Who a signer credential names, when it stops working (null: a permanent slug), and whether it may only look. */
export type SignerCredential = { signerId: string; sessionExpiresAt: number | null; viewOnly: boolean };

/**
 * What a view-only session may never do (the signer routes that act): consent, start or answer KBA
 * (a question set is billed and uses an attempt), submit, decline, pay, and record the signer's view (a partner's look is not the signer's: the audit log and
 * the envelope's `viewed` status stay the signer's own).
 */
export type SignerAct = "consent" | "start identity questions" | "answer KBA" | "text a passcode" | "verify a passcode" | "upload an attachment" | "record a view" | "submit" | "decline" | "pay";

/**
 * 403 `view_only_session` for a view-only session (one handed to an API key without `esign:write`:
 * docs/decisions/view-only-sessions.md) that tries to act for the signer.
 */
export function viewOnlyRefusal(act: SignerAct): ApiError {
  return new ApiError(
    403,
    `This signing session is view-only: it was handed to an API key without the esign:write scope, which may see what the signer sees but not ${act} for the signer. Ask for signing links with a key that holds esign:write, or let the signer use their invitation link`,
    { required_scope: "esign:write", action: act },
    "view_only_session",
  );
}

/**
 * The signer behind the credential in a signer URL: a signing session (`es_…`, opened: 404 if
 * forged, 410 once expired) or a permanent slug, found by its hash. Throws 404 for an unknown one.
 * With `act` the request acts for the signer, and a view-only session is refused (403 `view_only_session`).
 *
 * A row written before slugs were hashed holds the raw slug: it is matched by the raw value (never
 * by one already in the hashed form, so a value read from the column is never a credential) and
 * rewritten as its hash at once, guarded on the raw value so two first uses race harmlessly.
 *
 * A session issued before the signer's link was last re-issued (a correction or a re-sent invitation,
 * `signers.last_resent_at`) is dead at once, like the slug it stood beside: 404, as an unknown one. The
 * session's issue time rides on `ctx`, and `assertCurrentSession` checks it against the signer's row
 * where a verb reads that row anyway, so a session costs no extra D1 round trip.
 *
 * The shard (docs/decisions/shards.md 4, "Signer link"): a slug names its signer's shard (`2_…`), a
 * session the shard of the signer id it seals. `ctx` is moved onto that shard here, in place (as
 * `signerSession` is set on it), before any read: the signer routes and the signing page hand the same
 * `ctx` to the verb they call with the signer id this answers, so every read and write of the request
 * lands on the signer's shard. The path's `slug` already chose the slug's shard (middleware/record-shard.ts);
 * a session (`es_…`) names none, so without this it would read shard 1.
 */
export async function signerByCredential(ctx: RequestContext, credential: string, act?: SignerAct): Promise<SignerCredential> {
  if (isSigningSession(credential)) {
    const { signerId, expiresAt, issuedAt, viewOnly } = await openSigningSession(ctx.env, credential);
    if (viewOnly && act) throw viewOnlyRefusal(act);
    onSignerShard(ctx, signerId);
    // checked where the signer's row is read anyway (assertCurrentSession), not by a read of its own
    ctx.signerSession = { signerId, issuedAt, viewOnly };
    return { signerId, sessionExpiresAt: expiresAt, viewOnly };
  }
  onSignerShard(ctx, credential);
  const hash = await hashSlug(credential);
  const row = await findSignerBySlug(ctx.db, hash, credential, SLUG_HASH_PREFIX);
  if (!row) throw notFound("Signing link");
  if (row.slug_hash !== hash) {
    await rehashSignerSlug(ctx.db, row.id, credential, hash);
  }
  return { signerId: row.id, sessionExpiresAt: null, viewOnly: false };
}

/** Moves `ctx` (in place) onto the shard `id` names: a signer id, or a slug (`<n>_…`). */
function onSignerShard(ctx: RequestContext, id: string): void {
  const { db, shardId } = onShardOf(ctx, id);
  Object.assign(ctx, { db, shardId, recordShard: true });
}

/** The same for the signing page, which is served whatever the credential: null when it names no one now. */
export async function findSignerByCredential(ctx: RequestContext, credential: string): Promise<SignerCredential | null> {
  try {
    return await signerByCredential(ctx, credential);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 410)) return null;
    throw err;
  }
}

/** 404 when the request came with a signing session issued before this signer's link was last re-issued. */
export function assertCurrentSession(ctx: Pick<RequestContext, "signerSession">, signer: Pick<SignerRow, "id" | "last_resent_at">): void {
  const session = ctx.signerSession;
  if (session && session.signerId === signer.id && signer.last_resent_at && session.issuedAt < Date.parse(signer.last_resent_at)) {
    throw notFound("Signing link");
  }
}
