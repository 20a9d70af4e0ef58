import { CompactSign } from "jose";
import type { SealKey } from "../../pdf";
import { base64Der } from "./pem";

/**
 * The control attestation (docs/control.md): who controls the authoritative copy as of `iat`, stated by the
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

/** A compact JWS over `payload` (bytes, signed as they are) by the seal key; header `typ` and `x5c` = the seal certificate chain (standard base64 DER, signer first). */
export function signWithSeal(seal: SealKey, payload: Uint8Array, typ: string): Promise<string> {
  return new CompactSign(payload).setProtectedHeader({ alg: attestationAlg(seal.privateKey), typ, x5c: seal.chainDer.map(base64Der) }).sign(seal.privateKey);
}

/** The control attestation: a compact JWS over `payload` as JSON, signed by the seal key (signWithSeal). */
export function signAttestation(seal: SealKey, payload: AttestationPayload): Promise<string> {
  return signWithSeal(seal, new TextEncoder().encode(JSON.stringify(payload)), ATTESTATION_TYP);
}
