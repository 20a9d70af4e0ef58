import type { Env } from "../../env";
import { sha256HexOfParts } from "../incremental/hash";
import { loadSealKey } from "./seal-key";
import { sealPdfParts } from "./seal-pdf";

/**
 * Seals a completed document with the service's key (PAdES, timestamped when SEAL_TSA_URL is set), as
 * one more incremental update, and hashes the sealed file from its parts (never joined).
 */
export async function seal(env: Env, parts: Uint8Array[], input: { signingTime: Date }): Promise<{ parts: Uint8Array[]; sha256: string }> {
  const sealed = await sealPdfParts(parts, await loadSealKey(env), { signingTime: input.signingTime, tsa: env.SEAL_TSA_URL ? { url: env.SEAL_TSA_URL } : undefined });
  return { parts: sealed, sha256: await sha256HexOfParts(sealed) };
}
