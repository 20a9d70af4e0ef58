import canonicalize from "canonicalize";
import { calculateJwkThumbprint, CompactSign, importJWK, type JWK } from "jose";

/** The record actions a Control-Signature covers. */
export type ControlAction = "transfer" | "accept" | "reject" | "cancel" | "release_pledge" | "paid_off" | "paper_out";

export type SigningKey = {
  /** The private JWK (EC P-256 signs ES256, OKP Ed25519 signs EdDSA). */
  privateJwk: JWK;
  /** The kid the service knows the key by; default its RFC 7638 thumbprint (what the service assigns). */
  kid?: string;
};

/**
 * The Control-Signature header of a record action: a compact JWS over
 * `{ vault_id, action, transfer_id?, control_seq, body_sha256, iat }`, where `control_seq` is the
 * record's `control_seq` as GET /partner/vault/{vault_id} answers it (a signature is good for one
 * state of the record only) and `body_sha256` the SHA-256 hex of the request body's RFC 8785 canonical
 * JSON (`{}` for a request without a body). Pass `body` exactly as it will be sent.
 */
export async function controlSignature(input: SigningKey & {
  vaultId: string;
  action: ControlAction;
  transferId?: string;
  controlSeq: number;
  body?: unknown;
  /** seconds since the epoch; default now */
  iat?: number;
}): Promise<string> {
  const payload: Record<string, unknown> = {
    vault_id: input.vaultId,
    action: input.action,
    ...(input.transferId ? { transfer_id: input.transferId } : {}),
    control_seq: input.controlSeq,
    body_sha256: await bodySha256(input.body),
    iat: input.iat ?? nowSeconds(),
  };
  return sign(input, payload);
}

/**
 * The Control-Signature of adding or deleting a control key: a compact JWS over
 * `{ action, kid, jti, iat }`, `kid` naming the key added or deleted, `jti` a fresh random id (a
 * signature is used once).
 */
export async function controlKeySignature(input: SigningKey & { action: "add_key" | "delete_key"; targetKid: string; jti?: string; iat?: number }): Promise<string> {
  return sign(input, { action: input.action, kid: input.targetKid, jti: input.jti ?? crypto.randomUUID(), iat: input.iat ?? nowSeconds() });
}

/** SHA-256 hex of the RFC 8785 canonical JSON of `body` (`{}` when there is none). */
export async function bodySha256(body: unknown): Promise<string> {
  const text = canonicalize(body ?? {}) ?? "{}";
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The public half of a private JWK: what POST /partner/vault/control-keys registers. */
export function publicJwk(privateJwk: JWK): JWK {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, key_ops: _ops, ...rest } = privateJwk;
  return rest;
}

/** The kid the service gives a key: its RFC 7638 SHA-256 thumbprint. */
export const jwkKid = (jwk: JWK) => calculateJwkThumbprint(publicJwk(jwk), "sha256");

async function sign(key: SigningKey, payload: Record<string, unknown>): Promise<string> {
  const alg = algOf(key.privateJwk);
  const kid = key.kid ?? (await jwkKid(key.privateJwk));
  const privateKey = await importJWK(key.privateJwk, alg);
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ alg, kid }).sign(privateKey);
}

function algOf(jwk: JWK): "ES256" | "EdDSA" {
  if (jwk.kty === "EC" && jwk.crv === "P-256") return "ES256";
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return "EdDSA";
  throw new Error(`A control key is EC P-256 (ES256) or OKP Ed25519 (EdDSA), not ${jwk.kty}${jwk.crv ? ` ${jwk.crv}` : ""}`);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
