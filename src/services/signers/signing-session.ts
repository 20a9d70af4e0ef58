import type { Env } from "../../env";
import { ApiError, notFound } from "../../lib/errors";
import { openText, sealText } from "../../lib/sealed-text";
import { requireSecret } from "../../lib/secrets";

/**
 * A short-lived signing session: the credential that stands in for a signer's permanent slug in
 * `/api/v2/signing/{slug}/...` and on the signing page `/s/{slug}`, wherever the permanent link must
 * not go: the embedded sign widget (it lasts as long as the embed token that opened it) and the
 * partner's and console's signing links (15 minutes). It is the signer's id and an expiry, sealed with
 * AES-GCM under a key derived from EMBED_TOKEN_SECRET: it cannot be read, forged or extended, and the
 * server finds the signer from it without knowing the slug (stored only as a hash).
 * Format: `es_` + base64url(iv ‖ ciphertext ‖ tag), about 115 characters for a signer id, within the
 * signer routes' slug rule (16 to 128 of `[A-Za-z0-9_-]`); a slug never starts with `es_` (a sharded
 * slug starts with its shard's number, `2_…`). The sealed signer id names the signer's shard, where the
 * request then works (./resolve-credential.ts).
 *
 * The sealed text is `expiresAt.issuedAtMs.signerId`, or `expiresAt.issuedAtMs.signerId.view` for a
 * view-only session: the issue time lets a correction or a re-sent invitation end every session handed
 * out before it (signers/resolve-credential.ts compares it with the signer's `last_resent_at`;
 * docs/decisions/signer-corrections.md). A session sealed before the issue time was added
 * (`expiresAt.signerId`) counts as issued at the epoch: any re-issue ends it. A view-only session
 * (handed to a key without `esign:write`: docs/decisions/view-only-sessions.md) shows what the signer
 * would see and can act on nothing; the mark is inside the seal, so it cannot be stripped.
 */
export const SIGNING_SESSION_PREFIX = "es_";
/** The sealing purpose; v2 seals a signer id (v1 sealed the slug): a v1 session no longer opens, as if forged. */
const SEAL = { label: "signing-session", context: "v2" } as const;

export const isSigningSession = (value: string) => value.startsWith(SIGNING_SESSION_PREFIX);

const VIEW_ONLY = "view";

/** A signing session for the signer `signerId` that stops working at `expiresAt` (epoch seconds). */
export async function mintSigningSession(env: Env, input: { signerId: string; expiresAt: number; issuedAt?: number; viewOnly?: boolean }): Promise<string> {
  const issuedAt = input.issuedAt ?? Date.now();
  const plain = `${input.expiresAt}.${issuedAt}.${input.signerId}${input.viewOnly ? `.${VIEW_ONLY}` : ""}`;
  const sealed = await sealText({ secret: requireSecret(env, "EMBED_TOKEN_SECRET"), ...SEAL, plain });
  return SIGNING_SESSION_PREFIX + sealed;
}

/**
 * The signer behind a signing session and when the session ends. Anything not minted here is an
 * unknown signing link (404, as an unknown slug); an expired session is 410 with
 * `code: signing_session_expired` (the page asks the partner's site for a new embed token, a partner
 * for new signing links).
 */
export async function openSigningSession(env: Env, credential: string, now = Date.now()): Promise<{ signerId: string; expiresAt: number; issuedAt: number; viewOnly: boolean }> {
  if (!isSigningSession(credential)) throw notFound("Signing link");
  const plain = await openText({ secret: requireSecret(env, "EMBED_TOKEN_SECRET"), ...SEAL, sealed: credential.slice(SIGNING_SESSION_PREFIX.length) });
  if (plain === null) throw notFound("Signing link");
  const parts = plain.split(".");
  const viewOnly = parts.length === 4 && parts[3] === VIEW_ONLY;
  // `expiresAt.issuedAtMs.signerId[.view]`, or `expiresAt.signerId` from before the issue time was sealed (issued at the epoch)
  const [exp, iat, signerId] = parts.length === 3 || viewOnly ? parts : parts.length === 2 ? [parts[0], "0", parts[1]] : [];
  const expiresAt = Number(exp);
  const issuedAt = Number(iat);
  if (!exp || !iat || !Number.isSafeInteger(expiresAt) || !Number.isSafeInteger(issuedAt) || !signerId) throw notFound("Signing link");
  if (expiresAt * 1000 <= now) {
    throw new ApiError(
      410,
      "This signing session has expired: a signing session lasts 15 minutes (an embedded one as long as the embed token that opened it); reopen the widget or ask for a new signing link",
      { reason: "expired", expired_at: new Date(expiresAt * 1000).toISOString() },
      "signing_session_expired",
    );
  }
  return { signerId, expiresAt, issuedAt, viewOnly };
}
