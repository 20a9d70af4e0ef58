import type { SealKey } from "../seal/seal-key";
import type { MadeCopy } from "./mark-copy";
import { copySealReason, sealCopy } from "./seal-copy";
import { stampCopy } from "./stamp-copy";

export const PAPER_MARKING = "CONVERTED TO PAPER";

export type PaperStamp = { vaultId: string; documentHash: string; envelopeId: string; convertedAt: Date };

/**
 * Stamps a copy of a vaulted PDF as converted to paper (docs/control.md, paper-out): "CONVERTED TO PAPER"
 * across every page and a footer saying the electronic record is no longer authoritative, naming the
 * vault record, the authoritative SHA-256 and the date of conversion, plus the same statement in the
 * document information dictionary (Subject, Keywords and custom `VaultCopy`, `VaultRecordId`,
 * `AuthoritativeSHA256`, `ConvertedToPaperAt` keys) for machines.
 *
 * Like `markNonAuthoritativeCopy`, a re-serialized document of its own, never the original with an update
 * appended (./stamp-copy.ts), sealed by the service with the reason "Copy converted to paper of <sha256>".
 * The stamp draws only fixed ASCII text (no caller's free text), so any document that could be vaulted
 * can be stamped.
 */
export async function markConvertedToPaper(
  original: Uint8Array,
  stamp: PaperStamp,
  seal: SealKey,
): Promise<MadeCopy> {
  const day = stamp.convertedAt.toISOString().slice(0, 10);
  const stamped = await stampCopy(original, {
    marking: PAPER_MARKING,
    footer: `${PAPER_MARKING} on ${day}: this electronic record is no longer authoritative (UCC 9-105). Vault record ${stamp.vaultId}; authoritative SHA-256 ${stamp.documentHash}`,
    color: { r: 0.1, g: 0.2, b: 0.7 },
    subject: `${PAPER_MARKING}: vault record ${stamp.vaultId} (envelope ${stamp.envelopeId}) is no longer authoritative in electronic form`,
    keywords: [PAPER_MARKING, `vault:${stamp.vaultId}`, `sha256:${stamp.documentHash}`],
    info: {
      VaultCopy: "converted-to-paper",
      VaultRecordId: stamp.vaultId,
      AuthoritativeSHA256: stamp.documentHash,
      ConvertedToPaperAt: stamp.convertedAt.toISOString(),
    },
    at: stamp.convertedAt,
  });
  const parts = await sealCopy(stamped.parts, seal, { reason: copySealReason("converted-to-paper", stamp.documentHash), signingTime: stamp.convertedAt });
  return { parts, size: parts.reduce((n, p) => n + p.byteLength, 0), pageCount: stamped.pageCount, pagesMarked: stamped.pagesMarked };
}
