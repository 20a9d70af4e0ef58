import { stampCopy } from "./stamp-copy";

export const COPY_MARKING = "NON-AUTHORITATIVE COPY";

export type CopyStamp = { vaultId: string; documentHash: string; envelopeId: string; markedAt: Date };

/**
 * Marks a non-authoritative copy of a vaulted PDF: "NON-AUTHORITATIVE COPY" across every page and a
 * footer naming the vault record and the authoritative SHA-256, plus the same statement in the
 * document information dictionary (Subject, Keywords and custom `VaultCopy` keys) for machines.
 *
 * An incremental update appended to the original bytes (./stamp-copy.ts): the authoritative bytes
 * stay unchanged at the start of the copy, so an embedded signature still verifies.
 */
export async function markNonAuthoritativeCopy(
  original: Uint8Array,
  stamp: CopyStamp,
): Promise<{ update: Uint8Array; pageCount: number; pagesMarked: number }> {
  return stampCopy(original, {
    marking: COPY_MARKING,
    footer: `${COPY_MARKING} - not the authoritative copy (UCC 9-105). Vault record ${stamp.vaultId}; authoritative SHA-256 ${stamp.documentHash}`,
    color: { r: 0.8, g: 0.1, b: 0.1 },
    subject: `${COPY_MARKING} of vault record ${stamp.vaultId} (envelope ${stamp.envelopeId})`,
    keywords: [COPY_MARKING, `vault:${stamp.vaultId}`, `sha256:${stamp.documentHash}`],
    info: { VaultCopy: "non-authoritative", VaultRecordId: stamp.vaultId, AuthoritativeSHA256: stamp.documentHash },
    at: stamp.markedAt,
  });
}
