import type { Env } from "../../env";
import { sha256HexOfParts } from "../incremental/hash";
import { atLeast, raiseEvidence, targetLevel, type EvidenceLevel } from "./levels";
import { loadSealKey } from "./seal-key";
import { sealPdfParts, sealPdfPartsReporting } from "./seal-pdf";
import type { TimestampAuthority } from "./timestamp";

/**
 * Seals a completed document with the service's key (PAdES, timestamped when SEAL_TSA_URL is set), as
 * one more incremental update, and hashes the sealed file from its parts (never joined). A TSA failure
 * throws (502): callers that must not fail use `sealWithEvidence`.
 */
export async function seal(env: Env, parts: Uint8Array[], input: { signingTime: Date }): Promise<{ parts: Uint8Array[]; sha256: string }> {
  const sealed = await sealPdfParts(parts, await loadSealKey(env), { signingTime: input.signingTime, tsa: env.SEAL_TSA_URL ? { url: env.SEAL_TSA_URL } : undefined });
  return { parts: sealed, sha256: await sha256HexOfParts(sealed) };
}

/** What sealing or raising reached: the file, its hash, its level, the configuration's target, and why it fell short. */
export type SealOutcome = { parts: Uint8Array[]; sha256: string; level: EvidenceLevel; target: EvidenceLevel; shortfall?: string };

const tsaOf = (env: Env, fetcher?: typeof fetch): TimestampAuthority | undefined => (env.SEAL_TSA_URL ? { url: env.SEAL_TSA_URL, ...(fetcher ? { fetch: fetcher } : {}) } : undefined);

/**
 * Seals a completed document and raises it as far as the configuration allows (docs/evidence.md): B-B
 * always, B-T with SEAL_TSA_URL, B-LTA when the seal certificate also names its OCSP responder or
 * CRL. Never throws for a TSA or OCSP outage: the seal is made (at B-B if need be) and `level`,
 * `target` and `shortfall` say what is missing, for a later `raiseSealEvidence`. A missing or unusable
 * seal key still throws its 503 (configuration, checked before anything is written).
 */
export async function sealWithEvidence(env: Env, parts: Uint8Array[], input: { signingTime: Date; fetch?: typeof fetch }): Promise<SealOutcome> {
  const key = await loadSealKey(env);
  const tsa = tsaOf(env, input.fetch);
  const target = targetLevel({ tsa, sealCertificate: key.chain[0]! });
  const sealed = await sealPdfPartsReporting(parts, key, { signingTime: input.signingTime, tsa });
  let outcome: { parts: Uint8Array[]; level: EvidenceLevel; shortfall?: string } = sealed;
  if (!atLeast(sealed.level, target)) outcome = await raiseEvidence(sealed.parts, { seal: key, tsa, fetch: input.fetch, target });
  return { parts: outcome.parts, sha256: await sha256HexOfParts(outcome.parts), level: outcome.level, target, ...(outcome.shortfall ? { shortfall: outcome.shortfall } : {}) };
}

/**
 * Raises an already sealed document towards the configuration's target by incremental updates (the
 * raising job, before vaulting). Never throws for an outage; `shortfall` says why it stopped.
 */
export async function raiseSealEvidence(env: Env, parts: Uint8Array[], input: { fetch?: typeof fetch } = {}): Promise<SealOutcome> {
  const key = await loadSealKey(env);
  const tsa = tsaOf(env, input.fetch);
  const target = targetLevel({ tsa, sealCertificate: key.chain[0]! });
  const raised = await raiseEvidence(parts, { seal: key, tsa, fetch: input.fetch, target });
  return { parts: raised.parts, sha256: await sha256HexOfParts(raised.parts), level: raised.level, target, ...(raised.shortfall ? { shortfall: raised.shortfall } : {}) };
}
