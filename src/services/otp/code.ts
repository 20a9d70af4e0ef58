import type { Env } from "../../env";
import { hmacSha256, timingSafeEqual, toHex } from "../../lib/crypto";
import { requireSecret } from "../../lib/secrets";

/** The purpose label of the outbox provider's sealed texts (lib/sealed-text.ts). */
export const SMS_BODY_LABEL = "sms-outbox-body";

const LIMIT = 4_294_000_000; // the largest multiple of 10^6 below 2^32: no digit is likelier than another

/** A uniformly random 6-digit code (leading zeros kept). */
export function newOtpCode(): string {
  const word = new Uint32Array(1);
  do crypto.getRandomValues(word);
  while (word[0]! >= LIMIT);
  return String(word[0]! % 1_000_000).padStart(6, "0");
}

/**
 * What is stored for a code: an HMAC-SHA256 keyed by EMBED_TOKEN_SECRET over the signer and the code.
 * A plain hash of six digits would be undone by trying a million; without the secret the column is
 * useless, and a hash copied onto another signer's row does not match there.
 */
export async function otpCodeHash(env: Env, signerId: string, code: string): Promise<string> {
  const secret = requireSecret(env, "EMBED_TOKEN_SECRET");
  return `hmac-sha256:${toHex(await hmacSha256(secret, `sms-otp\0${signerId}\0${code}`))}`;
}

export async function otpCodeMatches(env: Env, signerId: string, code: string, stored: string): Promise<boolean> {
  return timingSafeEqual(await otpCodeHash(env, signerId, code), stored);
}
