import { sealPdfParts } from "../seal/seal-pdf";
import type { SealKey } from "../seal/seal-key";

/** The /Reason of a copy's seal: it names the authoritative (or signed) document the copy was made from. */
export const copySealReason = (kind: "non-authoritative" | "converted-to-paper", sha256: string) =>
  kind === "non-authoritative" ? `Non-authoritative copy of ${sha256}` : `Copy converted to paper of ${sha256}`;

/**
 * Seals a freshly written copy with the service's seal, as the service's statement "this copy came
 * from us, made of the document with this SHA-256": the completion pipeline's own sealer, one
 * signature covering the whole file, at PAdES B-B. Deliberately no signature timestamp, /DSS or
 * document timestamp even where the configuration reaches B-LTA for the authoritative copy: a copy is
 * made on a download as well as at vault-in, must not wait on (or fail with) a TSA or OCSP responder,
 * and carries no evidence of its own; the evidence is the authoritative copy's
 * (docs/decisions/re-serialized-copies.md).
 */
export function sealCopy(parts: Uint8Array[], seal: SealKey, input: { reason: string; signingTime: Date }): Promise<Uint8Array[]> {
  // as parts (the fresh file's, then the seal's update), never joined: a large copy is not held twice
  return sealPdfParts(parts, seal, { signingTime: input.signingTime, reason: input.reason });
}
