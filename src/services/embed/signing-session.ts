import type { Env } from "../../env";
import { ApiError, notFound } from "../../lib/errors";
import { requireSecret } from "../../lib/secrets";

/**
 * A short-lived signing session: the credential that stands in for a signer's permanent slug in
 * `/api/v2/signing/{slug}/...` and on the signing page `/s/{slug}`, wherever the permanent link must
 * not go: the embedded sign widget (it lasts as long as the embed token that opened it) and the
 * partner's and console's signing links (15 minutes). It is the signer's id and an expiry, sealed with
 * AES-GCM under a key derived from EMBED_TOKEN_SECRET: it cannot be read, forged or extended, and the
 * server finds the signer from it without knowing the slug (stored only as a hash).
 * Format: `es_` + base64url(iv ‖ ciphertext ‖ tag), about 95 characters for a signer id, within the
 * signer routes' slug rule (16 to 128 of `[A-Za-z0-9_-]`); a slug never contains `_`.
 */
export const SIGNING_SESSION_PREFIX = "es_";
// v2 seals a signer id (v1 sealed the slug): a v1 session no longer opens, as if forged
const AAD = new TextEncoder().encode("embed-signing-session/v2");

export const isSigningSession = (value: string) => value.startsWith(SIGNING_SESSION_PREFIX);

const keys = new Map<string, Promise<CryptoKey>>();

function keyOf(env: Env): Promise<CryptoKey> {
  const secret = requireSecret(env, "EMBED_TOKEN_SECRET");
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .digest("SHA-256", new TextEncoder().encode(`signing-session\0${secret}`))
      .then((raw) => crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]));
    keys.set(secret, key);
  }
  return key;
}

const toBase64Url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

/** A signing session for the signer `signerId` that stops working at `expiresAt` (epoch seconds). */
export async function mintSigningSession(env: Env, input: { signerId: string; expiresAt: number }): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: AAD }, await keyOf(env), new TextEncoder().encode(`${input.expiresAt}.${input.signerId}`));
  const out = new Uint8Array(iv.length + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), iv.length);
  return SIGNING_SESSION_PREFIX + toBase64Url(out);
}

/**
 * The signer behind a signing session and when the session ends. Anything not minted here is an
 * unknown signing link (404, as an unknown slug); an expired session is 410 with
 * `code: signing_session_expired` (the page asks the partner's site for a new embed token, a partner
 * for new signing links).
 */
export async function openSigningSession(env: Env, credential: string, now = Date.now()): Promise<{ signerId: string; expiresAt: number }> {
  const bytes = fromBase64Url(credential.slice(SIGNING_SESSION_PREFIX.length));
  if (!isSigningSession(credential) || !bytes || bytes.length < 12 + 16 + 3) throw notFound("Signing link");
  let plain: string;
  try {
    const opened = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.subarray(0, 12), additionalData: AAD }, await keyOf(env), bytes.subarray(12));
    plain = new TextDecoder().decode(opened);
  } catch {
    throw notFound("Signing link");
  }
  const dot = plain.indexOf(".");
  const expiresAt = Number(plain.slice(0, dot));
  const signerId = plain.slice(dot + 1);
  if (dot < 1 || !Number.isSafeInteger(expiresAt) || !signerId) throw notFound("Signing link");
  if (expiresAt * 1000 <= now) {
    throw new ApiError(
      410,
      "This signing session has expired: a signing session lasts 15 minutes (an embedded one as long as the embed token that opened it); reopen the widget or ask for a new signing link",
      { reason: "expired", expired_at: new Date(expiresAt * 1000).toISOString() },
      "signing_session_expired",
    );
  }
  return { signerId, expiresAt };
}
