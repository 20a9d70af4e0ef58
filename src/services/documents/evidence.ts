import type { Env } from "../../env";
import { atLeast, EVIDENCE_LEVELS, loadSealKey, targetLevel, type EvidenceLevel } from "../../pdf";

/**
 * The service's side of the PAdES evidence levels (docs/evidence.md, docs/decisions/evidence-levels-in-service.md):
 * the level this configuration's seals are to reach, how long auto-vault waits for it, and how a
 * recorded level reads.
 */

/** Default minutes auto-vault waits after completion for the configured level (SEAL_EVIDENCE_WAIT_MINUTES). */
export const DEFAULT_EVIDENCE_WAIT_MINUTES = 60;

/** The level the configured seal is to reach: B-B without SEAL_TSA_URL, B-T with it, B-LTA when the seal certificate also names its OCSP responder or CRL. */
export async function evidenceTarget(env: Env): Promise<EvidenceLevel> {
  const key = await loadSealKey(env);
  return targetLevel({ tsa: env.SEAL_TSA_URL || null, sealCertificate: key.chain[0]! });
}

/** How long after completion auto-vault waits for the target level before vaulting with what it has. */
export function evidenceWaitMs(env: Env): number {
  const raw = env.SEAL_EVIDENCE_WAIT_MINUTES?.trim();
  const minutes = raw ? Number(raw) : DEFAULT_EVIDENCE_WAIT_MINUTES;
  return (Number.isFinite(minutes) && minutes >= 0 ? minutes : DEFAULT_EVIDENCE_WAIT_MINUTES) * 60_000;
}

/** A stored level as a level (unknown text or none: null, i.e. not recorded). */
export function asEvidenceLevel(value: string | null | undefined): EvidenceLevel | null {
  return (EVIDENCE_LEVELS as readonly string[]).includes(value ?? "") ? (value as EvidenceLevel) : null;
}

/** The levels below `target` (what the raising job looks for), as one JSON array. */
export const levelsBelow = (target: EvidenceLevel): EvidenceLevel[] => EVIDENCE_LEVELS.filter((l) => !atLeast(l, target));

export { atLeast, type EvidenceLevel };
