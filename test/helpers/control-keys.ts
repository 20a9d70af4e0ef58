import { calculateJwkThumbprint, CompactSign, exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import { call } from "./api";

/** A control key pair made as a partner makes it with `jose`: ES256 (P-256) or Ed25519. */
export type ControlKeyPair = { alg: "ES256" | "EdDSA"; privateKey: CryptoKey; jwk: JWK; kid: string };

export async function makeControlKey(alg: "ES256" | "EdDSA" = "ES256"): Promise<ControlKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === "EdDSA" ? { crv: "Ed25519" } : {}) });
  const jwk = await exportJWK(publicKey);
  return { alg, privateKey, jwk, kid: await calculateJwkThumbprint(jwk, "sha256") };
}

/**
 * A Control-Signature: a compact JWS by `key` (its kid in the header, or `kid` to lie about it) over
 * `payload` plus `iat` (now, or `iat` seconds since the epoch).
 */
export async function controlSignature(key: ControlKeyPair, payload: Record<string, unknown>, opts: { iat?: number; kid?: string } = {}): Promise<string> {
  const body = { ...payload, iat: opts.iat ?? Math.floor(Date.now() / 1000) };
  return new CompactSign(new TextEncoder().encode(JSON.stringify(body))).setProtectedHeader({ alg: key.alg, kid: opts.kid ?? key.kid }).sign(key.privateKey);
}

/** POST /partner/vault/control-keys, signed with `signer` (over add_key of the new kid) when given. */
export async function registerControlKey(apiKey: string, key: ControlKeyPair, signer?: ControlKeyPair, opts: { iat?: number } = {}) {
  const headers: Record<string, string> = {};
  if (signer) headers["Control-Signature"] = await controlSignature(signer, { action: "add_key", kid: key.kid }, opts);
  return call("POST", "/partner/vault/control-keys", { key: apiKey, body: { jwk: key.jwk }, headers });
}
