import { CompactSign } from "jose";
import type { SealKey } from "../../pdf";

/**
 * The control attestation (DESIGN.md 9): who controls the authoritative copy as of `iat`, stated by the
 * service under its seal key, so anyone holding the seal certificate checks it offline.
 */
export type AttestationPayload = {
  vault_id: string;
  envelope_id: string;
  document_hash: string;
  status: string;
  controller: { org_id: string; name: string | null };
  pledgor: { org_id: string; name: string | null } | null;
  /** the number of entries of the control history (GET …/control-history) */
  history_length: number;
  /** the hash of the envelope's audit chain's newest entry the attestation covers */
  chain_head: string;
  /** Unix seconds */
  iat: number;
};

export const ATTESTATION_TYP = "vault-control-attestation+jws";

/** The JWS algorithm of the seal key: RS256 for RSA, ES256 for P-256, ES384 for P-384. */
export function attestationAlg(key: CryptoKey): "RS256" | "ES256" | "ES384" {
  const algorithm = key.algorithm as { name: string; namedCurve?: string };
  if (algorithm.name === "ECDSA") return algorithm.namedCurve === "P-384" ? "ES384" : "ES256";
  return "RS256";
}

const base64 = (der: Uint8Array) => {
  let s = "";
  for (let i = 0; i < der.length; i += 0x8000) s += String.fromCharCode(...der.subarray(i, i + 0x8000));
  return btoa(s);
};

/** A compact JWS over `payload`, signed by the seal key; header `x5c` = the seal certificate chain (standard base64 DER, signer first). */
export async function signAttestation(seal: SealKey, payload: AttestationPayload): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: attestationAlg(seal.privateKey), typ: ATTESTATION_TYP, x5c: seal.chainDer.map(base64) })
    .sign(seal.privateKey);
}
