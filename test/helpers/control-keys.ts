import canonicalize from "canonicalize";
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

/** A key change's Control-Signature (docs/control.md): `payload` (`{ action, kid }`) with a fresh `jti` unless it names one. */
export function keySignature(key: ControlKeyPair, payload: Record<string, unknown>, opts: { iat?: number; kid?: string } = {}): Promise<string> {
  return controlSignature(key, { jti: crypto.randomUUID(), ...payload }, opts);
}

/** `body_sha256` as a partner computes it: SHA-256 (hex) of the body as RFC 8785 canonical JSON, `{}` without a body. */
export async function bodySha256Of(body: unknown = {}): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonicalize(body)!));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The record's `control_seq` as GET /partner/vault/:vault_id answers it to `apiKey`'s organization. */
export async function controlSeqOf(apiKey: string, vaultId: string): Promise<number> {
  const res = await call("GET", `/partner/vault/${vaultId}`, { key: apiKey });
  if (res.status !== 200) throw new Error(`GET /partner/vault/${vaultId}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.control_seq as number;
}

/**
 * A record action's Control-Signature as a partner makes it (docs/control.md): `{ vault_id, action,
 * transfer_id?, control_seq, body_sha256, iat }`, the sequence read with `apiKey` unless given and the
 * body hashed canonically (`{}` for a bodiless action).
 */
export async function recordSignature(
  key: ControlKeyPair,
  apiKey: string,
  input: { vault_id: string; action: string; transfer_id?: string; body?: unknown; control_seq?: number },
  opts: { iat?: number } = {},
): Promise<string> {
  const { body, control_seq, ...claims } = input;
  return controlSignature(key, { ...claims, control_seq: control_seq ?? (await controlSeqOf(apiKey, input.vault_id)), body_sha256: await bodySha256Of(body ?? {}) }, opts);
}

/** POST /partner/vault/control-keys, signed with `signer` (over add_key of the new kid, a fresh jti) when given. */
export async function registerControlKey(apiKey: string, key: ControlKeyPair, signer?: ControlKeyPair, opts: { iat?: number } = {}) {
  const headers: Record<string, string> = {};
  if (signer) headers["Control-Signature"] = await keySignature(signer, { action: "add_key", kid: key.kid }, opts);
  return call("POST", "/partner/vault/control-keys", { key: apiKey, body: { jwk: key.jwk }, headers });
}
