import type { SealKey } from "../seal/seal-key";
import { copySealReason, sealCopy } from "./seal-copy";
import { stampCopy } from "./stamp-copy";

export const COPY_MARKING = "NON-AUTHORITATIVE COPY";

/**
 * `vaultId`: the vault record, or a phrase saying there is none yet (a signer's copy before vaulting).
 * `documentHash`: the SHA-256 of the document the copy is made of (the authoritative copy; before
 * vaulting, the signed document).
 */
export type CopyStamp = { vaultId: string; documentHash: string; envelopeId: string; markedAt: Date };

/** The copy as its parts (the re-serialized file, then its seal: store them with `putParts`, hash with `sha256HexOfParts`). */
export type MadeCopy = { parts: Uint8Array[]; size: number; pageCount: number; pagesMarked: number };

/**
 * The non-authoritative copy of a PDF (UCC 9-105(b)(4)-(5)): a re-serialized document of its own
 * (./stamp-copy.ts: the original's signatures flattened to appearance, never the original with an
 * update appended) with "NON-AUTHORITATIVE COPY of <sha256>" across every page, a footer naming the
 * vault record and the SHA-256, the same statement in the document information dictionary (Subject,
 * Keywords and custom `VaultCopy`, `VaultRecordId`, `AuthoritativeSHA256` keys), sealed by the service
 * with the reason "Non-authoritative copy of <sha256>" (./seal-copy.ts).
 */
export async function markNonAuthoritativeCopy(original: Uint8Array, stamp: CopyStamp, seal: SealKey): Promise<MadeCopy> {
  const stamped = await stampCopy(original, {
    marking: COPY_MARKING,
    footer: `${COPY_MARKING} of ${stamp.documentHash} - not the authoritative copy (UCC 9-105). Vault record ${stamp.vaultId}`,
    color: { r: 0.8, g: 0.1, b: 0.1 },
    subject: `${COPY_MARKING} of vault record ${stamp.vaultId} (envelope ${stamp.envelopeId})`,
    keywords: [COPY_MARKING, `vault:${stamp.vaultId}`, `sha256:${stamp.documentHash}`],
    info: { VaultCopy: "non-authoritative", VaultRecordId: stamp.vaultId, AuthoritativeSHA256: stamp.documentHash },
    at: stamp.markedAt,
  });
  const parts = await sealCopy(stamped.parts, seal, { reason: copySealReason("non-authoritative", stamp.documentHash), signingTime: stamp.markedAt });
  return { parts, size: parts.reduce((n, p) => n + p.byteLength, 0), pageCount: stamped.pageCount, pagesMarked: stamped.pagesMarked };
}
