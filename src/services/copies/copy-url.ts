import type { Env } from "../../env";
import { hmacSha256, timingSafeEqual, toHex } from "../../lib/crypto";
import { ApiError, type ErrorCodesByStatus } from "../../lib/errors";
import { requireSecret } from "../../lib/secrets";

/**
 * The link to the signer's copy (docs/consumer-signing.md "The signer's copy"; docs/decisions/signers-copy.md):
 * `{STORAGE_HOST}/copies/{envelope_id}?r={recipient}&exp={unix seconds}&sig={hex}`. It needs no login,
 * names neither an R2 key nor a signing slug, and is signed as vault downloads are: `sig` is HMAC-SHA256
 * keyed by STORAGE_URL_SECRET over the envelope, the recipient (a signer `sgn_…` or a cc recipient
 * `ccr_…`) and `exp`, so changing any byte of them invalidates it. `exp` is fixed by the completion:
 * 30 days after it, whenever the link is made.
 */
export const COPY_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/** When the copy stops being served: 30 days after the envelope completed (`signed_at`). */
export function copyExpiresAt(signedAt: string): Date {
  return new Date(Date.parse(signedAt) + COPY_DAYS * DAY_MS);
}

/** Whether the copy of an envelope completed at `signedAt` is still served at `now`. */
export const copyAvailable = (signedAt: string | null, now = Date.now()): signedAt is string => signedAt !== null && copyExpiresAt(signedAt).getTime() > now;

function signature(secret: string, envelopeId: string, recipientId: string, exp: number): Promise<string> {
  return hmacSha256(secret, `signer-copy:v1\n${envelopeId}\n${recipientId}\n${exp}`).then(toHex);
}

export type CopyLink = { url: string; expires_at: string };

/** The copy link of one recipient of an envelope completed at `signedAt`. */
export async function signCopyUrl(env: Env, input: { envelopeId: string; recipientId: string; signedAt: string }): Promise<CopyLink> {
  const secret = requireSecret(env, "STORAGE_URL_SECRET");
  const exp = Math.floor(copyExpiresAt(input.signedAt).getTime() / 1000);
  const sig = await signature(secret, input.envelopeId, input.recipientId, exp);
  const host = env.STORAGE_HOST.replace(/\/+$/, "");
  const query = new URLSearchParams({ r: input.recipientId, exp: String(exp), sig });
  return { url: `${host}/copies/${encodeURIComponent(input.envelopeId)}?${query.toString()}`, expires_at: new Date(exp * 1000).toISOString() };
}

/**
 * Checks a copy link: its signature (timing-safe; 403 `invalid_copy_link` when it does not match),
 * then its expiry, only once the signature covers it (410 `copy_link_expired`).
 */
export async function verifyCopyUrl(env: Env, input: { envelopeId: string; r: string; exp: string; sig: string }): Promise<void> {
  const secret = requireSecret(env, "STORAGE_URL_SECRET");
  const exp = /^\d{1,12}$/.test(input.exp) ? Number(input.exp) : NaN;
  const expected = Number.isNaN(exp) ? null : await signature(secret, input.envelopeId, input.r, exp);
  if (!expected || !timingSafeEqual(expected, input.sig.toLowerCase())) {
    throw new ApiError(403, "Invalid copy link: the signature does not match", undefined, "invalid_copy_link");
  }
  if (exp * 1000 <= Date.now()) {
    throw new ApiError(410, `This copy link has expired: the signed document was available for ${COPY_DAYS} days after completion`, { expired_at: new Date(exp * 1000).toISOString() }, "copy_link_expired");
  }
}

/** What a signer's copy link answers when forged or past its days. */
export const COPY_LINK_ERRORS: ErrorCodesByStatus = { 403: ["invalid_copy_link"], 410: ["copy_link_expired"] };
